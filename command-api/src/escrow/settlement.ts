import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  IllegalStateError,
  NotFoundError,
  ValidationError,
  currentSettlement,
  decideSettlement,
  dueSettlement,
  formatAmount,
  settlementWindows,
  type ExistingPool,
  type PreparedSettlement,
} from '@cagnotte/domain';
import { defineRoute, ledgerCall, type RouteDef, type SettlementRound } from '@cagnotte/infra';

type Transaction = SettlementRound['lock'];
import { decodeSignedXdr, submitClientSigned } from '../ledger/client-signed';
import { metadataFor, poolStream } from '../shared/context';
import { POSITION_HEADER, executeCommand, fromRequest, type CommandCtx } from '../shared/execute-command';
import { poolAggregate, poolInTenant } from '../pools/aggregate';
import { tenantOf } from '../reservations/runtime';
import { escrowMeta, existingPool, loadPoolIn, type EscrowDeps } from './runtime';
import { dueChangedSince, lockCandidates, nextRound, planInputsFor, planOf, rebuiltPlan, replaceablePlan, requireTrustlines, settlementAccounts } from './plan';
import { submitRecoveries, syncSettlements, unsettled } from './sync';
import { recordStrayPayments } from './strays';

// The organiser's side of the escrow's release: prepare the settlement (lock, release and recovery per round,
// docs/escrow.md), cosign, submit. The service verifies each transaction against the recorded plan and the outcome
// on the ledger; it never signs anything but the platform's half of a lock.

const PoolParams = z.object({ id: z.string().uuid() });
const hex = (tx: Transaction) => Buffer.from(tx.hash()).toString('hex');

const Tx = z.object({ xdr: z.string(), hash: z.string() });
const Payment = z.object({ destination: z.string(), amount: z.string() });
export const SettlementPlanSchema = z
  .object({
    settlementId: z.string().uuid(),
    kind: z.enum(['RELEASE', 'REFUND']),
    final: z.boolean().describe('The escrow is merged back into the platform at the end'),
    status: z.enum(['PREPARED', 'IN_PROGRESS', 'SETTLED']),
    escrowAccount: z.string(),
    networkPassphrase: z.string(),
    releaseUntil: z.string().describe('The locks and releases are valid until then'),
    recoveryFrom: z.string().describe('From then, a round whose lock is on the ledger and whose release is not can only be recovered: every deposit goes back whole'),
    recoveryUntil: z.string(),
    rounds: z.array(
      z.object({
        index: z.number().int(),
        reservations: z.array(z.string()).describe('The deposits this round settles (reservation ids; `late:<balanceId>` for a late deposit)'),
        lock: Tx.describe('Signed by the platform already: add your signature'),
        release: Tx.describe('Pre-authorised by the lock: add your signature'),
        recovery: Tx.extend({ validFrom: z.string() }).describe('Keyless: anyone may submit it from `validFrom` if the release never came'),
        payouts: z.array(Payment).describe('What the release pays, per destination'),
        refunds: z.array(Payment).describe('What the recovery pays back, per depositor'),
        settled: z.object({ path: z.enum(['RELEASE', 'RECOVERY']), txHash: z.string() }).nullable(),
      }),
    ),
    strayReturns: z.array(Payment).describe('What the first lock pays back: money paid straight into the escrow account (not a deposit), to each sender'),
    toSign: z.array(z.string()).describe('The hashes to sign, in the order to submit them: lock 0, release 0, lock 1, …'),
  })
  .describe('SettlementPlan');
type SettlementPlan = z.infer<typeof SettlementPlanSchema>;

const planAnswer = (deps: EscrowDeps, s: PreparedSettlement, rounds: SettlementRound[]): SettlementPlan => {
  const signedLock = (r: SettlementRound) => deps.escrow.platformSign(r.lock);
  const payments = (list: SettlementRound['payouts']) => list.map((p) => ({ destination: p.destination, amount: formatAmount(p.amount) }));
  const done = s.settledRounds.size;
  return {
    settlementId: s.settlementId,
    kind: s.kind,
    final: s.final,
    status: done === s.rounds.length ? 'SETTLED' : done > 0 ? 'IN_PROGRESS' : 'PREPARED',
    escrowAccount: s.escrowAccount,
    networkPassphrase: deps.ledger.settings.networkPassphrase,
    releaseUntil: s.releaseUntil,
    recoveryFrom: s.recoveryFrom,
    recoveryUntil: s.recoveryUntil,
    rounds: rounds.map((r) => {
      const settled = s.settledRounds.get(r.index);
      return {
        index: r.index,
        reservations: r.refs,
        lock: { xdr: signedLock(r).toXDR(), hash: hex(r.lock) },
        release: { xdr: r.release.toXDR(), hash: hex(r.release) },
        recovery: { xdr: r.recovery.toXDR(), hash: hex(r.recovery), validFrom: s.recoveryFrom },
        payouts: payments(r.payouts),
        refunds: payments(r.refunds),
        settled: settled ? { path: settled.path, txHash: settled.txHash } : null,
      };
    }),
    strayReturns: (s.strayReturns ?? []).map((r) => ({ destination: r.destination, amount: r.amount })),
    toSign: rounds.filter((r) => !s.settledRounds.has(r.index)).flatMap((r) => [hex(r.lock), hex(r.release)]),
  };
};

/** The settlement the escrow is locked on (lockCandidates whose lock is a success on the ledger), or null while it is armed. */
const lockedOn = async (deps: EscrowDeps, settlements: PreparedSettlement[], state: { exists: boolean; sequence: bigint }): Promise<PreparedSettlement | null> => {
  for (const s of lockCandidates(settlements, state)) {
    const lock = await ledgerCall(() => deps.escrow.transactionOutcome(nextRound(s)!.lockHash));
    if (lock?.successful) return s;
  }
  return null;
};

export const makeSettlementRoutes = (deps: EscrowDeps): RouteDef[] => {
  const { clock, ledger, escrow } = deps;

  /** The lock as the organiser signed it, with the platform's signature (added if they signed the bare one; ed25519 is deterministic). */
  const withPlatform = (tx: Transaction): Transaction => {
    const platformSignature = escrow.platformSign(tx).signatures.at(-1)!.toXDR('base64');
    return tx.signatures.some((sig) => sig.toXDR('base64') === platformSignature) ? tx : escrow.platformSign(tx);
  };

  /** Prepares (records) a new settlement of what is due now, and answers its plan. */
  const prepareNew = async (ctx: CommandCtx, read: ExistingPool, supersedes: string | null) => {
    // Money paid straight into the escrow is recorded first (with its sender): the plan's first lock pays it back.
    const recorded = await recordStrayPayments(deps, read.id, metadataFor(ctx, tenantOf(ctx), clock().toISOString()));
    const pool = recorded > 0 ? existingPool(await loadPoolIn(deps, read.id, tenantOf(ctx))) : read;
    const accounts = await settlementAccounts(deps.store, ledger, pool);
    const due = dueSettlement(pool, accounts);
    const now = clock();
    const windows = settlementWindows(now.toISOString(), pool.escrow!.reclaimAfter, deps.releaseWindowHours);
    const state = await ledgerCall(() => escrow.escrowState(pool.escrow!.accountId));
    if (!state.exists) throw new NotFoundError('escrow');
    const inputs = planInputsFor(pool, due, state, windows);
    const rounds = planOf(ledger, inputs);
    await requireTrustlines(escrow, rounds);
    const settlementId = randomUUID();
    const planned = rounds.map((r) => ({ index: r.index, refs: r.refs, lockHash: hex(r.lock), releaseHash: hex(r.release), recoveryHash: hex(r.recovery) }));
    const tenantId = tenantOf(ctx);
    const actor = await deps.facts.actor(ctx.auth!);
    const at = now.toISOString();
    const { answer } = await executeCommand(deps, {
      stream: poolStream(pool.id),
      aggregate: poolAggregate,
      // Planned on the pool as read for the ledger; the decider checks the plan against the pool it decides on.
      decide: ({ pool: p }) =>
        decideSettlement({ type: 'PrepareSettlement', data: { settlementId, accounts, kind: due.kind, ...inputs, rounds: planned, supersedes }, metadata: escrowMeta(actor, at) }, poolInTenant(p, tenantId)),
      respond: (outcome) => {
        const s = outcome.state.pool.status === 'none' ? undefined : outcome.state.pool.settlement.byId.get(settlementId);
        return { status: 201, data: planAnswer(deps, s!, rounds) };
      },
      ...fromRequest(ctx, tenantId, at),
    });
    return answer;
  };

  const prepare = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/escrow/settlement',
    operationId: 'preparePoolEscrowSettlement',
    summary: 'Prepare the settlement of what is due (the organiser): the transactions to cosign',
    description: [
      'Owner and organiser of a closed pool, or of an open pool that owes deposits back. A LOCKED (successful) pool releases every deposit that is due: all of them when its terms release at closing, else those whose buyer confirmed receipt, whose inspection period passed, or whose dispute ended (an open dispute holds its reservation’s deposit, not the others). A FAILED or CANCELLED pool refunds every deposit. Deposits that came late are always refunded, at once: an OPEN pool settles only those (`kind` REFUND, never `final`; the escrow is re-armed after and keeps taking deposits).',
      'Answers 201 with the plan (docs/escrow.md): one or more rounds of three transactions on the escrow account. The **lock** (already signed by the platform) installs two pre-authorised transactions on one sequence number and removes the platform’s signing weight: the **release**, which still needs your signature, and the **recovery**, keyless, valid from `recoveryFrom`, that pays every deposit of the round back whole. Only one of them can ever run. Sign `toSign` in order (each lock, then its release) and submit them (POST …/escrow/settlement/submit), or submit them to the ledger yourself and send their hashes.',
      'While a settlement is under way (the escrow is locked on it), calling again answers it unchanged (200). An unsigned settlement whose window passed, or that no longer matches what is due, is replaced by a new one (201). 400 `nothing_to_settle`, `pool_not_closed` (an open pool that owes nothing back), `payout_account_required`, `payout_account_not_ready` (a recipient does not trust the stablecoin yet), `too_late_to_settle` (past it, each buyer reclaims their own deposit).',
    ].join('\n\n'),
    tags: ['Escrow'],
    auth: 'required',
    params: PoolParams,
    idempotent: true,
    success: { status: 201, description: 'The settlement plan (200 when answering the one under way)', schema: SettlementPlanSchema },
    responseHeaders: { [POSITION_HEADER]: 'Feed position of the write' },
    errors: [400, 401, 403, 404, 409, 503],
    handler: async (ctx) => {
      const poolId = ctx.params.id;
      let pool = existingPool(await loadPoolIn(deps, poolId, tenantOf(ctx)));
      if (pool.organiserId !== ctx.auth!.userId) throw new NotFoundError('pool');
      // What the ledger already did is recorded first: the plan answered is then the truth.
      if (unsettled(pool).length > 0 && (await syncSettlements(deps, poolId, metadataFor(ctx, tenantOf(ctx), clock().toISOString()))) > 0) {
        pool = existingPool(await loadPoolIn(deps, poolId, tenantOf(ctx)));
      }
      const current = currentSettlement(pool);
      if (!current) return prepareNew(ctx, pool, null);
      // The settlement the escrow is locked on is the one under way: the current one, or an older one whose cosigned
      // lock was submitted after it was replaced (then the current one can never land, and none may be prepared).
      const state = await ledgerCall(() => escrow.escrowState(current.escrowAccount));
      const locked = await lockedOn(deps, unsettled(pool), state);
      if (locked) return { status: 200, data: planAnswer(deps, locked, rebuiltPlan(ledger, locked)) };
      const due = dueOrNothing(pool, await settlementAccounts(deps.store, ledger, pool));
      const lock = state.exists ? await ledgerCall(() => escrow.transactionOutcome(nextRound(current)!.lockHash)) : null;
      if (replaceablePlan(current, state, lock, dueChangedSince(current, due), clock().getTime())) return prepareNew(ctx, pool, current.settlementId);
      return { status: 200, data: planAnswer(deps, current, rebuiltPlan(ledger, current)) };
    },
  });

  const submit = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/escrow/settlement/submit',
    summary: 'Submit the cosigned settlement (the organiser): verified on the ledger, recorded per recipient',
    description: [
      'Owner and organiser. Primary path: you submitted the cosigned transactions yourself; send their `txHashes`. Fallback: send the `signedXdrs` (each lock and release you signed, in order) and the service submits them. Each must be exactly a transaction of the plan (400 `not_in_settlement`); a lock lacking the platform’s signature gets it.',
      'The service then reads each round’s release (or recovery) back from the ledger and records it: one `EscrowPayoutSettled` event per recipient, one `ReservationSettled` per deposit, and `PoolSettled` when the escrow was merged back. The ledger refuses a release without your signature (400 `ledger_rejected`, `tx_bad_auth`): the platform alone cannot move anything. Answers the plan with each round’s outcome; `pending` while the ledger does not show a transaction yet (call again).',
    ].join('\n\n'),
    tags: ['Escrow'],
    auth: 'required',
    params: PoolParams,
    body: z
      .object({
        settlementId: z.string().uuid(),
        signedXdrs: z.array(z.string().min(1).max(60_000)).max(400).optional(),
        txHashes: z.array(z.string().regex(/^[0-9a-fA-F]{64}$/)).max(400).optional(),
      })
      .strict()
      .refine((b) => (b.signedXdrs?.length ?? 0) + (b.txHashes?.length ?? 0) > 0, { message: 'give signedXdrs or txHashes', path: ['signedXdrs'] }),
    idempotent: true,
    success: { status: 200, description: 'The plan with each round’s outcome', schema: SettlementPlanSchema.extend({ pending: z.boolean() }) },
    errors: [400, 401, 403, 404, 503],
    handler: async (ctx) => {
      const poolId = ctx.params.id;
      const tenantId = tenantOf(ctx);
      const pool = existingPool(await loadPoolIn(deps, poolId, tenantId));
      if (pool.organiserId !== ctx.auth!.userId) throw new NotFoundError('pool');
      const s = pool.settlement.byId.get(ctx.body.settlementId);
      if (!s) throw new NotFoundError('settlement');
      const rounds = rebuiltPlan(ledger, s);
      const planned = new Map<string, { round: number; kind: 'lock' | 'release' }>();
      for (const r of rounds) {
        planned.set(hex(r.lock), { round: r.index, kind: 'lock' });
        planned.set(hex(r.release), { round: r.index, kind: 'release' });
      }
      const given = new Map<string, Transaction>();
      for (const [i, signedXdr] of (ctx.body.signedXdrs ?? []).entries()) {
        const { tx, hash } = decodeSignedXdr(ledger, signedXdr);
        const which = planned.get(hash);
        if (!which) throw new ValidationError({ [`signedXdrs.${i}`]: ['not a lock or release of this settlement'] }, 'A transaction is not part of the settlement', 'not_in_settlement');
        given.set(hash, which.kind === 'lock' ? withPlatform(tx) : tx);
      }
      for (const [i, h] of (ctx.body.txHashes ?? []).entries()) {
        if (!planned.has(h.toLowerCase())) throw new ValidationError({ [`txHashes.${i}`]: ['not a lock or release of this settlement'] }, 'A transaction is not part of the settlement', 'not_in_settlement');
      }
      let pending = false;
      let refusal: unknown = null;
      try {
        // In the plan's order: a round's release can only apply after its lock.
        for (const r of rounds) {
          if (s.settledRounds.has(r.index)) continue;
          for (const tx of [r.lock, r.release]) {
            const signed = given.get(hex(tx));
            if (signed && (await submitClientSigned(ledger, signed, hex(tx))) === 'unavailable') pending = true;
          }
        }
      } catch (e) {
        // A later transaction refused: the rounds that did land before it are recorded all the same, then the refusal.
        refusal = e;
      }
      await syncSettlements(deps, poolId, metadataFor(ctx, tenantId, clock().toISOString()));
      if (refusal) throw refusal;
      const after = existingPool(await loadPoolIn(deps, poolId, tenantId)).settlement.byId.get(s.settlementId)!;
      const plan = planAnswer(deps, after, rounds);
      return { data: { ...plan, pending: pending || plan.status !== 'SETTLED' } };
    },
  });

  const recovery = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/escrow/recovery',
    operationId: 'recoverPoolEscrow',
    summary: 'Run the keyless recovery of a round whose release never came (the organiser or a buyer of the pool)',
    description:
      'The organiser, or a buyer holding a reservation in the pool (anyone else: 404). For each settlement round whose lock is on the ledger and whose release is not, from `recoveryFrom` the service submits the round’s pre-authorised recovery (it needs no signature: anyone may submit it, the plan hands it out) and records the refunds. Before then the ledger refuses it: `too_early`. A job does the same at `recoveryFrom`.',
    tags: ['Escrow'],
    auth: 'required',
    params: PoolParams,
    success: {
      status: 200,
      description: 'What was attempted, per round',
      schema: z.object({ attempts: z.array(z.object({ settlementId: z.string(), round: z.number().int(), result: z.string(), codes: z.array(z.string()).optional() })), recorded: z.number().int() }),
    },
    errors: [401, 404, 503],
    handler: async (ctx) => {
      const poolId = ctx.params.id;
      const tenantId = tenantOf(ctx);
      const pool = existingPool(await loadPoolIn(deps, poolId, tenantId));
      const userId = ctx.auth!.userId;
      const involved = pool.organiserId === userId || [...pool.holdings.byId.values()].some((r) => r.buyerId === userId);
      if (!involved) throw new NotFoundError('pool');
      const metadata = () => metadataFor(ctx, tenantId, clock().toISOString());
      await syncSettlements(deps, poolId, metadata());
      const attempts = await submitRecoveries(deps, existingPool(await loadPoolIn(deps, poolId, tenantId)));
      const recorded = await syncSettlements(deps, poolId, metadata());
      return { data: { attempts, recorded } };
    },
  });

  return [prepare, submit, recovery];
};

/** What is due now, or null when nothing is (any other refusal stands). */
const dueOrNothing = (pool: ExistingPool, accounts: Parameters<typeof dueSettlement>[1]) => {
  try {
    return dueSettlement(pool, accounts);
  } catch (e) {
    if (e instanceof IllegalStateError && e.code === 'nothing_to_settle') return null;
    throw e;
  }
};
