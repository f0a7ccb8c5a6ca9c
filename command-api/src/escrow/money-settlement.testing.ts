import * as assert from 'uvu/assert';
import { Account, Operation, TransactionBuilder, type Transaction, type xdr } from '@stellar/stellar-sdk';
import { IllegalStateError, NotFoundError, ValidationError, currentSettlement, decideSettlement, dueSettlement, formatAmount, settlementWindows, type ExistingPool } from '@cagnotte/domain';
import { dueChangedSince, lockCandidates, nextRound, planInputsFor, planOf, rebuiltPlan, replaceablePlan } from './plan';
import { unsettled } from './sync';
import { ASSET, ESCROW, EURC, KEYS, PASSPHRASE, PLATFORM, escrowLedger, escrowStateOf, gateway, signWith, signedCopy } from './money-ledger.testing';
import { RELEASE_WINDOW_HOURS, type MoneyWorld, type Outcome } from './money-world.testing';

// The settlement's side of the money property, the way command-api/src/escrow/settlement.ts, sync.ts and jobs.ts drive
// it: the prepare route (sync first; answer the current settlement or replace it, by plan.ts's own rules; plan from
// the escrow's state on the ledger; the decider checks what is due on the fresh stream), the submit route (the
// organiser's cosigned transactions in the plan's order, then sync), syncSettlements, and the recovery job. Every
// transaction is planSettlement's, signed as the service and the organiser sign it, applied by the sandbox engine.

export type Submission = 'all' | 'lock' | 'release' | 'unsignedRelease' | 'platformLock';

/** The prepare route, on a pool read `stale` events ago (the decider then decides on the fresh stream): the settlement it answers, or null when refused. */
export const prepare = (w: MoneyWorld, stale: number): string | null => {
  try {
    let read = w.readStale(stale);
    if (!read) throw new NotFoundError('pool');
    if (unsettled(read).length > 0 && sync(w, 0) > 0) read = w.existing;
    const current = currentSettlement(read);
    if (!current) return prepareNew(w, read, null, stale);
    const state = escrowStateOf(w.ledger, current.escrowAccount);
    const locked = lockCandidates(unsettled(read), state).find((s) => w.ledger.transaction(nextRound(s)!.lockHash)?.successful);
    if (locked) return locked.settlementId;
    const lock = state.exists ? w.ledger.transaction(nextRound(current)!.lockHash) : null;
    if (replaceablePlan(current, state, lock, dueChangedSince(current, dueOrNothing(w, read)), w.now)) return prepareNew(w, read, current.settlementId, stale);
    return current.settlementId;
  } catch (e) {
    return w.refused(e);
  }
};

/**
 * The organiser settles: prepare, cosign everything, submit. A plan the prepare route answers, still within its
 * release window, must then be carried out to the end: a plan that can no longer land is not one to answer.
 */
export const settle = (w: MoneyWorld, stale: number): void => {
  const id = prepare(w, stale);
  if (!id) return;
  submit(w, 'all', 0, id);
  const s = w.existing.settlement.byId.get(id)!;
  if (Date.parse(s.releaseUntil) > w.now) {
    assert.is(s.settledRounds.size, s.rounds.length, `settlement ${id}, answered by the prepare route and cosigned in its window, did not settle`);
  }
};

const dueOrNothing = (w: MoneyWorld, pool: ExistingPool) => {
  try {
    return dueSettlement(pool, w.accounts());
  } catch (e) {
    if (e instanceof IllegalStateError && e.code === 'nothing_to_settle') return null;
    throw e;
  }
};

const prepareNew = (w: MoneyWorld, staleRead: ExistingPool, supersedes: string | null, stale: number): string | null => {
  // recordStrayPayments first: the plan's first lock pays every stray back (the route then reads the pool again).
  const strays = w.recordStrays(0);
  const read = 'events' in strays && strays.events.length > 0 ? w.existing : staleRead;
  const accounts = w.accounts();
  const due = dueSettlement(read, accounts);
  const windows = settlementWindows(w.iso, read.escrow!.reclaimAfter, RELEASE_WINDOW_HOURS);
  const state = escrowStateOf(w.ledger, read.escrow!.accountId);
  if (!state.exists) throw new NotFoundError('escrow');
  const inputs = planInputsFor(read, due, state, windows);
  const rounds = planOf(gateway, inputs);
  const trusts = (id: string) => w.ledger.account(id)?.trustlines.some((t) => t.code === ASSET.code && t.issuer === ASSET.issuer) ?? false;
  const missing = [...new Set(rounds.flatMap((r) => [...r.payouts, ...r.refunds].map((p) => p.destination)))].filter((d) => !trusts(d));
  if (missing.length > 0) throw new ValidationError({ payouts: missing }, 'A recipient cannot receive the stablecoin yet', 'payout_account_not_ready');
  const settlementId = w.nextSettlementId();
  const hex = (t: Transaction) => Buffer.from(t.hash()).toString('hex');
  const recorded = rounds.map((r) => ({ index: r.index, refs: r.refs, lockHash: hex(r.lock), releaseHash: hex(r.release), recoveryHash: hex(r.recovery) }));
  const metadata = w.escrowMeta('organiser');
  const outcome = w.decide((p) => decideSettlement({ type: 'PrepareSettlement', data: { settlementId, accounts, kind: due.kind, ...inputs, rounds: recorded, supersedes }, metadata }, p), stale);
  return 'refused' in outcome ? null : settlementId;
};

/**
 * The submit route with `signedXdrs`: the organiser's cosigned lock and release of each round not settled yet (or
 * some of them, or a release they did not sign), submitted in the plan's order; a refusal stops it (400
 * ledger_rejected), else what the ledger shows is recorded.
 */
export const submit = (w: MoneyWorld, what: Submission, stale: number, settlementId: string | 'oldest' | null = null): Outcome => {
  const all = [...w.existing.settlement.byId.values()];
  const s =
    settlementId === 'oldest'
      ? unsettled(w.existing)[0]
      : settlementId
        ? w.existing.settlement.byId.get(settlementId)
        : (currentSettlement(w.existing) ?? all.at(-1));
  if (!s) return { events: [] };
  const rounds = rebuiltPlan(gateway, s);
  const open = rounds.filter((r) => !s.settledRounds.has(r.index));
  const next = open[0];
  if (!next) return { events: [] };
  const cosignedLock = (tx: Transaction) => signWith(escrowLedger.platformSign(tx), KEYS.organiser);
  // Each with whether the ledger must refuse it: a lock the organiser did not sign, a release they did not sign.
  const given: Array<[Transaction, boolean]> = [];
  if (what === 'all') for (const r of open) given.push([cosignedLock(r.lock), false], [signedCopy(r.release, KEYS.organiser), false]);
  if (what === 'lock') given.push([cosignedLock(next.lock), false]);
  if (what === 'release') given.push([signedCopy(next.release, KEYS.organiser), false]);
  if (what === 'unsignedRelease') given.push([cosignedLock(next.lock), false], [signedCopy(next.release, KEYS.platform), true]);
  if (what === 'platformLock') given.push([escrowLedger.platformSign(next.lock), true]);
  for (const [tx, mustBeRefused] of given) {
    const hash = Buffer.from(tx.hash()).toString('hex');
    const before = w.ledger.transaction(hash);
    const result = w.ledger.submit(tx);
    if (mustBeRefused) assert.ok(before || !result.applied, `a ${what === 'platformLock' ? 'lock signed by the platform alone' : 'release without the organiser’s signature'} applied`);
    if (!result.applied && !w.ledger.transaction(hash)) return w.count({ refused: 'ledger_rejected' });
  }
  sync(w, stale);
  return { events: [] };
};

/** syncSettlements: each unrecorded round's release, else its recovery, after its own lock, as the ledger shows it, recorded in order. */
export const sync = (w: MoneyWorld, stale: number): number => {
  let recorded = 0;
  for (const s of unsettled(w.existing)) {
    for (const planned of s.rounds) {
      if (s.settledRounds.has(planned.index)) continue;
      const release = w.ledger.transaction(planned.releaseHash);
      const recovery = release?.successful ? null : w.ledger.transaction(planned.recoveryHash);
      const landed = release?.successful ? { path: 'RELEASE' as const, tx: release } : recovery?.successful ? { path: 'RECOVERY' as const, tx: recovery } : null;
      if (!landed) break;
      if (!w.ledger.transaction(planned.lockHash)?.successful) break;
      const data = { settlementId: s.settlementId, round: planned.index, path: landed.path, txHash: landed.tx.hash, ledger: landed.tx.ledger };
      const outcome = w.decide((p) => decideSettlement({ type: 'RecordSettledRound', data, metadata: { now: w.iso } }, p), stale);
      if ('refused' in outcome) throw new Error(`recording round ${planned.index} of ${s.settlementId} was refused: ${outcome.refused}`);
      recorded += 1;
    }
  }
  return recorded;
};

/** The escrow-recovery job: sync, submit the keyless recovery of a round whose lock landed and whose release did not, sync. */
export const recover = (w: MoneyWorld): void => {
  sync(w, 0);
  for (const s of unsettled(w.existing)) {
    const state = escrowStateOf(w.ledger, s.escrowAccount);
    for (const round of rebuiltPlan(gateway, s)) {
      if (s.settledRounds.has(round.index)) continue;
      if (state.exists && state.sequence === BigInt(round.lock.sequence)) w.ledger.submit(round.recovery);
      break;
    }
  }
  sync(w, 0);
};

/**
 * Someone without the organiser tries to move the escrow's money: the platform alone (its weight is 1 of 2, then 0
 * after a lock), the platform with E's own (zero-weight) key, or the organiser alone. It must never even apply.
 */
export const alone = (w: MoneyWorld, what: 'claim' | 'merge' | 'signer', signer: 'platform' | 'platformAndEscrowKey' | 'organiser'): void => {
  const e = w.ledger.account(ESCROW);
  const held = w.ledger.claimableBalances({ claimant: ESCROW })[0];
  const ops: xdr.Operation[] =
    what === 'claim' && held
      ? [Operation.claimClaimableBalance({ balanceId: held.balanceId }), Operation.payment({ destination: PLATFORM, asset: EURC, amount: formatAmount(held.amount, 7) })]
      : what === 'signer'
        ? [Operation.setOptions({ signer: { ed25519PublicKey: PLATFORM, weight: 3 }, lowThreshold: 1, medThreshold: 1, highThreshold: 1 })]
        : [Operation.accountMerge({ destination: PLATFORM })];
  const tx = new TransactionBuilder(new Account(ESCROW, (e?.seqNum ?? 0n).toString()), { fee: '1000', networkPassphrase: PASSPHRASE, timebounds: { minTime: 0, maxTime: 0 } });
  for (const op of ops) tx.addOperation(op);
  const keys = signer === 'platform' ? [KEYS.platform] : signer === 'organiser' ? [KEYS.organiser] : [KEYS.platform, KEYS.escrow];
  const result = w.ledger.submit(signWith(tx.build(), ...keys));
  assert.not.ok(result.applied, `${signer} alone applied a ${what} on the escrow (${JSON.stringify(result.codes)})`);
};
