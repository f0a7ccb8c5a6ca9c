import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Asset, Keypair, StrKey, type Operation, type OperationRecord, type Transaction } from '@stellar/stellar-sdk';
import { MAX_OPERATIONS, planSettlement, type SettlementItem, type SettlementPlanInput, type SettlementRound } from './settlement';

const sha = (s: string) => createHash('sha256').update(s).digest();
const account = (name: string) => Keypair.fromRawEd25519Seed(sha(`settlement spec ${name}`)).publicKey();
const balanceId = (name: string) => `00000000${sha(`balance ${name}`).toString('hex')}`;

const E = account('escrow');
const P = account('platform');
const SELLER = account('seller');
const ORGANISER = account('organiser');
const EURC = new Asset('EURC', account('issuer'));
const S = 77_309_411_328n;

/** An item of `amount` stroops from `buyer`: 5 % to the platform, 10 % to the organiser, the rest to the seller. */
const item = (ref: string, amount: bigint, buyer = 'buyer'): SettlementItem => {
  const fee = (amount * 5n) / 100n;
  const commission = (amount * 10n) / 100n;
  return {
    ref,
    balanceId: balanceId(ref),
    amount,
    refundTo: account(buyer),
    payouts: [
      { destination: SELLER, amount: amount - fee - commission },
      { destination: ORGANISER, amount: commission },
      { destination: P, amount: fee },
    ],
  };
};

const input = (over: Partial<SettlementPlanInput> = {}): SettlementPlanInput => ({
  networkPassphrase: 'Cagnotte settlement unit spec',
  asset: EURC,
  escrowAccount: E,
  escrowSequence: S,
  platform: P,
  strayBalance: 0n,
  strayReturns: [],
  hasTrustline: true,
  items: [item('a', 125_000_000n)],
  final: true,
  releaseUntil: 1_800_000_000,
  recoveryFrom: 1_800_086_400,
  recoveryUntil: 1_800_864_000,
  ...over,
});

type Op = OperationRecord;
const ops = (tx: Transaction): Op[] => tx.operations;
const kinds = (tx: Transaction) => ops(tx).map((o) => o.type);
const preAuthOf = (o: Op) => (o.type === 'setOptions' && o.signer && 'preAuthTx' in o.signer ? Buffer.from(o.signer.preAuthTx as Uint8Array).toString('hex') : null);
const hashOf = (tx: Transaction) => Buffer.from(tx.hash()).toString('hex');
const payments = (tx: Transaction) =>
  ops(tx)
    .filter((o): o is Operation.Payment => o.type === 'payment')
    .map((o) => [o.destination, o.amount]);
const xdrs = (rounds: SettlementRound[]) => rounds.flatMap((r) => [r.lock.toXDR(), r.release.toXDR(), r.recovery.toXDR()]);
const throws = (f: () => unknown, pattern: RegExp) => {
  try {
    f();
  } catch (e) {
    assert.match((e as Error).message, pattern);
    return;
  }
  assert.unreachable(`no error matching ${pattern}`);
};

const test = suite('planSettlement');

test('one final round: the lock installs both pre-auth signers, removes the platform, thresholds 3; the release pays out and merges; the recovery refunds and merges', () => {
  const [round, ...rest] = planSettlement(input());
  assert.is(rest.length, 0);
  const { lock, release, recovery } = round!;
  assert.equal(kinds(lock), ['changeTrust', 'setOptions', 'setOptions', 'setOptions']);
  const [untrust, r, v, platform] = ops(lock) as [Operation.ChangeTrust, Operation.SetOptions, Operation.SetOptions, Operation.SetOptions];
  assert.is(untrust.limit, '0.0000000');
  assert.equal([preAuthOf(r), r.signer!.weight], [hashOf(release), 2]);
  assert.equal([preAuthOf(v), v.signer!.weight], [hashOf(recovery), 3]);
  assert.equal([platform.signer, platform.lowThreshold, platform.medThreshold, platform.highThreshold], [{ ed25519PublicKey: P, weight: 0 }, 3, 3, 3]);

  assert.equal(kinds(release), ['changeTrust', 'claimClaimableBalance', 'payment', 'payment', 'payment', 'setOptions', 'changeTrust', 'accountMerge']);
  assert.is((ops(release)[0] as Operation.ChangeTrust).limit, '12.5000000');
  assert.is((ops(release)[1] as Operation.ClaimClaimableBalance).balanceId, balanceId('a'));
  assert.equal(payments(release), [
    [SELLER, '10.6250000'],
    [ORGANISER, '1.2500000'],
    [P, '0.6250000'],
  ]);
  assert.equal([preAuthOf(ops(release)[5]!), (ops(release)[5] as Operation.SetOptions).signer!.weight], [hashOf(recovery), 0], 'the dead twin leaves');
  assert.is((ops(release)[6] as Operation.ChangeTrust).limit, '0.0000000');
  assert.is((ops(release)[7] as Operation.AccountMerge).destination, P);

  assert.equal(kinds(recovery), ['changeTrust', 'claimClaimableBalance', 'payment', 'changeTrust', 'accountMerge']);
  assert.equal(payments(recovery), [[account('buyer'), '12.5000000']]);
  assert.not.ok(ops(recovery).some((o) => preAuthOf(o) !== null), 'the recovery names no signer (it cannot know the release hash)');
  assert.equal(round!.payouts, [
    { destination: SELLER, amount: 106_250_000n },
    { destination: ORGANISER, amount: 12_500_000n },
    { destination: P, amount: 6_250_000n },
  ]);
  assert.equal(round!.refunds, [{ destination: account('buyer'), amount: 125_000_000n }]);
  assert.equal(round!.refs, ['a']);
});

test('sequences: L_k at s+2k+1, R_k and V_k both at s+2k+2; time bounds: L and R [0, releaseUntil], V [recoveryFrom, recoveryUntil]; fees per operation', () => {
  const rounds = planSettlement(input({ items: Array.from({ length: 200 }, (_, i) => item(`i${i}`, BigInt(1_000 + i), `b${i % 4}`)), feePerOperation: 250 }));
  assert.ok(rounds.length >= 3);
  rounds.forEach((r, k) => {
    assert.is(r.index, k);
    assert.is(r.lock.sequence, (S + BigInt(2 * k + 1)).toString());
    assert.is(r.release.sequence, (S + BigInt(2 * k + 2)).toString());
    assert.is(r.recovery.sequence, r.release.sequence);
    for (const tx of [r.lock, r.release, r.recovery]) {
      assert.is(tx.source, E);
      assert.is(tx.fee, String(250 * tx.operations.length));
      assert.is(tx.signatures.length, 0, 'unsigned');
    }
    assert.equal(r.lock.timeBounds, { minTime: '0', maxTime: '1800000000' });
    assert.equal(r.release.timeBounds, { minTime: '0', maxTime: '1800000000' });
    assert.equal(r.recovery.timeBounds, { minTime: '1800086400', maxTime: '1800864000' });
  });
  assert.is(planSettlement(input()).at(0)!.release.fee, String(100 * 8), 'default 100 stroops an operation');
});

test('250 items with fan-outs of 1 to 9 destinations: every transaction ≤ 100 operations, each round as full as it can be, every item once, in order', () => {
  const destinations = Array.from({ length: 30 }, (_, i) => account(`d${i}`));
  const items: SettlementItem[] = Array.from({ length: 250 }, (_, i) => {
    const fan = 1 + (i % 9);
    const amount = BigInt(10_000 + i * 7);
    const share = amount / BigInt(fan);
    const payouts = Array.from({ length: fan }, (_, j) => ({ destination: destinations[(i * 7 + j * 3) % 30]!, amount: j === 0 ? amount - share * BigInt(fan - 1) : share }));
    if (i % 11 === 0) payouts.push({ destination: account(`zero${i}`), amount: 0n });
    return { ref: `r${i}`, balanceId: balanceId(`fan${i}`), amount, refundTo: account(`buyer${i % 40}`), payouts };
  });
  const zeros = new Set(items.flatMap((i) => i.payouts.filter((p) => p.amount === 0n).map((p) => p.destination)));
  assert.is(zeros.size, 23);
  const rounds = planSettlement(input({ items }));
  assert.ok(rounds.length >= 3, `${rounds.length} rounds`);
  assert.equal(
    rounds.flatMap((r) => r.refs),
    items.map((i) => i.ref),
  );
  for (const r of rounds) {
    assert.ok(r.refs.length >= 1);
    for (const tx of [r.lock, r.release, r.recovery]) assert.ok(tx.operations.length <= MAX_OPERATIONS, `${tx.operations.length} operations`);
    assert.is(r.release.operations.length, r.refs.length + r.payouts.length + 4);
    assert.is(r.recovery.operations.length, r.refs.length + r.refunds.length + 3);
    assert.not.ok(payments(r.release).some(([d]) => zeros.has(d!)), 'a zero payout pays nothing');
  }
  // Greedy and full: a round plus the next item does not fit in one round.
  for (let k = 0; k + 1 < rounds.length; k++) {
    const start = rounds.slice(0, k).reduce((n, r) => n + r.refs.length, 0);
    const more = items.slice(start, start + rounds[k]!.refs.length + 1);
    assert.is(planSettlement(input({ items: more })).length, 2, `round ${k} could not take the next item`);
  }
  const claimed = rounds.reduce((sum, r) => sum + r.payouts.reduce((s, p) => s + p.amount, 0n), 0n);
  assert.is(claimed, items.reduce((s, i) => s + i.amount, 0n), 'what the releases pay is what they claim');
  assert.is(rounds.reduce((sum, r) => sum + r.refunds.reduce((s, p) => s + p.amount, 0n), 0n), claimed, 'and the recoveries too');
});

test('deterministic: the same input gives byte-identical transactions; a change of any input changes the hashes', () => {
  const items = Array.from({ length: 150 }, (_, i) => item(`d${i}`, BigInt(5_000_000 + i), `b${i % 3}`));
  const a = planSettlement(input({ items }));
  const b = planSettlement(input({ items: items.map((i) => ({ ...i, payouts: i.payouts.map((p) => ({ ...p })) })) }));
  assert.equal(xdrs(a), xdrs(b));
  assert.ok(a.length === 2);
  assert.is.not(xdrs(planSettlement(input({ items, escrowSequence: S + 2n })))[0], xdrs(a)[0]);
  assert.is.not(xdrs(planSettlement(input({ items, recoveryUntil: 1_800_864_001 })))[0], xdrs(a)[0], 'the lock names the recovery’s hash');
});

test('aggregation: payouts summed per destination in order of first appearance, zero dropped; refunds summed per depositor', () => {
  const [round] = planSettlement(
    input({
      items: [
        { ref: 'x', balanceId: balanceId('x'), amount: 30n, refundTo: account('b1'), payouts: [{ destination: ORGANISER, amount: 10n }, { destination: SELLER, amount: 20n }, { destination: P, amount: 0n }] },
        { ref: 'y', balanceId: balanceId('y'), amount: 7n, refundTo: account('b2'), payouts: [{ destination: SELLER, amount: 7n }] },
        { ref: 'z', balanceId: balanceId('z'), amount: 5n, refundTo: account('b1'), payouts: [{ destination: P, amount: 1n }, { destination: ORGANISER, amount: 4n }] },
      ],
    }),
  );
  assert.equal(payments(round!.release), [
    [ORGANISER, '0.0000014'],
    [SELLER, '0.0000027'],
    [P, '0.0000001'],
  ]);
  assert.equal(payments(round!.recovery), [
    [account('b1'), '0.0000035'],
    [account('b2'), '0.0000007'],
  ]);
  assert.is((ops(round!.release)[0] as Operation.ChangeTrust).limit, '0.0000042', 'the trustline holds exactly the round');
});

test('stray balance and trustline: paid back to its senders (never to the platform) and removed by the first lock only; none without a trustline; dead pre-auth signers removed by the first lock only', () => {
  const items = Array.from({ length: 120 }, (_, i) => item(`s${i}`, 1_000n + BigInt(i)));
  const dead = StrKey.encodePreAuthTx(sha('an old release'));
  const strayReturns = [
    { destination: account('sender-1'), amount: 30_000_000n },
    { destination: account('sender-2'), amount: 1n },
  ];
  const rounds = planSettlement(input({ items, strayBalance: 30_000_001n, strayReturns, deadPreAuthSigners: [dead] }));
  assert.is(rounds.length, 2);
  const first = ops(rounds[0]!.lock);
  assert.equal(kinds(rounds[0]!.lock), ['setOptions', 'payment', 'payment', 'changeTrust', 'setOptions', 'setOptions', 'setOptions']);
  assert.equal([preAuthOf(first[0]!), (first[0] as Operation.SetOptions).signer!.weight], [sha('an old release').toString('hex'), 0]);
  assert.equal(payments(rounds[0]!.lock), [[account('sender-1'), '3.0000000'], [account('sender-2'), '0.0000001']]);
  throws(() => planSettlement(input({ strayBalance: 30_000_001n, strayReturns: [{ destination: P, amount: 30_000_000n }] })), /stray returns pay 30000000 stroops/);
  throws(() => planSettlement(input({ strayBalance: 0n, strayReturns: [{ destination: account('sender-1'), amount: 1n }] })), /stray returns pay 1 stroops/);
  assert.equal(kinds(rounds[1]!.lock), ['setOptions', 'setOptions', 'setOptions'], 'later locks: no sweep, no trustline, no clean-up');
  assert.equal(kinds(planSettlement(input({ hasTrustline: false }))[0]!.lock), ['setOptions', 'setOptions', 'setOptions']);
  throws(() => planSettlement(input({ hasTrustline: false, strayBalance: 1n, strayReturns: [{ destination: account('sender-1'), amount: 1n }] })), /stray balance without a trustline/);
  throws(() => planSettlement(input({ deadPreAuthSigners: [P] })), /not a pre-auth signer key/);
});

test('endings: only the last round of a final plan merges; every other round (and every round of a non-final plan) re-arms P weight 1 / thresholds 2', () => {
  const items = Array.from({ length: 200 }, (_, i) => item(`e${i}`, 2_000n + BigInt(i)));
  const ending = (tx: Transaction) => ops(tx).at(-1)!;
  for (const final of [true, false]) {
    const rounds = planSettlement(input({ items, final }));
    assert.ok(rounds.length >= 3);
    rounds.forEach((r, k) => {
      for (const tx of [r.release, r.recovery]) {
        const last = ending(tx);
        if (final && k === rounds.length - 1) assert.equal([last.type, (last as Operation.AccountMerge).destination], ['accountMerge', P]);
        else {
          const o = last as Operation.SetOptions;
          assert.equal([o.type, o.signer, o.lowThreshold, o.medThreshold, o.highThreshold], ['setOptions', { ed25519PublicKey: P, weight: 1 }, 2, 2, 2]);
        }
      }
    });
  }
});

test('no items: nothing to do unless final; then one round that claims nothing, touches no trustline, and merges', () => {
  assert.equal(planSettlement(input({ items: [], final: false })), []);
  const rounds = planSettlement(input({ items: [], strayBalance: 5n, strayReturns: [{ destination: account('sender-1'), amount: 5n }] }));
  assert.is(rounds.length, 1);
  const [r] = rounds;
  assert.equal(r!.refs, []);
  assert.equal(kinds(r!.lock), ['payment', 'changeTrust', 'setOptions', 'setOptions', 'setOptions']);
  assert.equal(kinds(r!.release), ['setOptions', 'accountMerge']);
  assert.equal(kinds(r!.recovery), ['accountMerge']);
  assert.equal([r!.payouts, r!.refunds], [[], []]);
});

test('refused: payouts not summing exactly to the amount, negative or empty amounts, a balance twice, a bad balance id, paying the escrow, time bounds out of order, an item too wide for one transaction', () => {
  const a = item('a', 100n);
  throws(() => planSettlement(input({ items: [{ ...a, payouts: [{ destination: SELLER, amount: 99n }] }] })), /payouts sum to 99 stroops, the deposit is 100/);
  throws(() => planSettlement(input({ items: [{ ...a, payouts: [{ destination: SELLER, amount: 101n }] }] })), /payouts sum to 101/);
  throws(() => planSettlement(input({ items: [{ ...a, payouts: [{ destination: SELLER, amount: 101n }, { destination: P, amount: -1n }] }] })), /negative/);
  throws(() => planSettlement(input({ items: [{ ...a, amount: 0n, payouts: [] }] })), /not positive/);
  throws(() => planSettlement(input({ items: [a, { ...item('b', 100n), balanceId: a.balanceId }] })), /claimed twice/);
  throws(() => planSettlement(input({ items: [{ ...a, balanceId: a.balanceId.slice(8) }] })), /not 00000000/);
  throws(() => planSettlement(input({ items: [{ ...a, refundTo: E }] })), /pays the escrow itself/);
  throws(() => planSettlement(input({ recoveryFrom: 1_800_000_000 })), /releaseUntil < recoveryFrom < recoveryUntil/);
  throws(() => planSettlement(input({ recoveryUntil: 1_800_086_400 })), /releaseUntil < recoveryFrom < recoveryUntil/);
  throws(() => planSettlement(input({ releaseUntil: 1.5 })), /whole seconds/);
  throws(() => planSettlement(input({ feePerOperation: 99 })), /feePerOperation/);
  const wide = (n: number): SettlementItem => ({ ref: 'wide', balanceId: balanceId('wide'), amount: BigInt(n), refundTo: account('b'), payouts: Array.from({ length: n }, (_, i) => ({ destination: account(`w${i}`), amount: 1n })) });
  assert.is(planSettlement(input({ items: [wide(95)] }))[0]!.release.operations.length, 100, '95 destinations: exactly 100 operations');
  throws(() => planSettlement(input({ items: [item('x', 10n), wide(96)] })), /alone it exceeds 100 operations/);
});

test.run();
