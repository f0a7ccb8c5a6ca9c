import { ValidationError, initialPool, requirePublishable, type EscrowOpening } from '@cagnotte/domain';
import { ledgerCall } from '@cagnotte/infra';
import { loadActor, loadAccount, poolStream } from '../shared/context';
import { loadState } from '../shared/run-command';
import { poolAggregate, type CommandCtx, type PoolCommandDeps } from './handler';

const DAY_MS = 86_400_000;
/** A pool without a deadline is open for at most this long before buyers may reclaim (plus the reclaim delay). */
export const OPEN_PERIOD_WITHOUT_DEADLINE_DAYS = 90;

/**
 * Before a DRAFT is published its escrow account is opened on the ledger: checked first against the pool as its
 * stream says (nothing touches the ledger for a pool that cannot publish), then opened (the same account again on a
 * retry: its key is derived from the pool id), then the decider records it with the publication.
 */
export const openEscrowFor = async (deps: PoolCommandDeps, ctx: CommandCtx, poolId: string): Promise<EscrowOpening> => {
  const auth = ctx.auth!;
  const tenantId = ctx.tenant?.id ?? auth.tenantId;
  const actor = await loadActor(deps.store, auth);
  const { pool } = await loadState(deps.store, poolStream(poolId), poolAggregate);
  const existing = requirePublishable(pool.status !== 'none' && pool.tenantId !== tenantId ? initialPool() : pool, actor);
  const account = await loadAccount(deps.store, auth.userId);
  const organiserAccount = account.status === 'none' ? null : account.ledgerAccount;
  if (!organiserAccount) {
    throw new ValidationError(
      { ledgerAccount: ['link a ledger account first (POST /api/me/ledger/challenge, then /api/me/ledger/link): it cosigns the pool’s escrow'] },
      'A linked ledger account is required to publish',
      'ledger_account_required',
    );
  }
  const opened = await ledgerCall(() => deps.escrow.openEscrow({ poolId, organiserAccount }));
  const closesAt = existing.fields.deadline ? Date.parse(existing.fields.deadline) : deps.clock().getTime() + OPEN_PERIOD_WITHOUT_DEADLINE_DAYS * DAY_MS;
  // Whole seconds: the ledger's claim predicates count in seconds, and the deposit must name exactly this time.
  const reclaimAfter = new Date(Math.ceil((closesAt + deps.reclaimAfterDays * DAY_MS) / 1000) * 1000).toISOString();
  return { ...opened, organiserSigner: organiserAccount, reclaimAfter };
};
