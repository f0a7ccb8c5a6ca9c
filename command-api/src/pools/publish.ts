import { ValidationError, requirePublishable, type EscrowOpening, type Pool, type PoolActor } from '@cagnotte/domain';
import { ledgerCall, type AuthContext } from '@cagnotte/infra';
import { poolStream } from '../shared/context';
import { loadState } from '../shared/run-command';
import { poolAggregate, poolInTenant, type PoolCommandState } from './aggregate';
import type { PoolCommandDeps } from './deps';

const DAY_MS = 86_400_000;
/** A pool without a deadline is open for at most this long before buyers may reclaim (plus the reclaim delay). */
export const OPEN_PERIOD_WITHOUT_DEADLINE_DAYS = 90;

/**
 * Before a DRAFT is published its escrow account is opened on the ledger: checked first against the pool as its
 * stream says (nothing touches the ledger for a pool that cannot publish), then opened (the same account again on a
 * retry: its key is derived from the pool id), then the decider records it with the publication, checking again on
 * the state it decides on. Answers the caller (the facts the command is decided under) with the opening.
 */
export const openEscrowFor = async (
  deps: PoolCommandDeps,
  auth: AuthContext,
  tenantId: string,
  poolId: string,
  visible: (state: PoolCommandState, pool: Pool) => Pool = (_s, pool) => pool,
): Promise<{ actor: PoolActor; escrow: EscrowOpening }> => {
  const [{ actor, account }, state] = await Promise.all([deps.facts.persona(auth), loadState(deps.store, poolStream(poolId), poolAggregate)]);
  const existing = requirePublishable(visible(state, poolInTenant(state.pool, tenantId)), actor);
  const organiserAccount = account.ledgerAccount;
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
  return { actor, escrow: { ...opened, organiserSigner: organiserAccount, reclaimAfter } };
};
