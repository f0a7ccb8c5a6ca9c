import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PreparedSettlement } from '@cagnotte/domain';
import { lockCandidates, nextLockSequence, replaceablePlan } from './plan';

// The prepare route's rule for replacing the current settlement (docs/escrow.md, "Settlement round"), round 0 of a
// plan made at escrow sequence 100: its lock takes sequence 101, its release or recovery 102.

const NOW = Date.parse('2026-03-10T12:00:00.000Z');
const plan = (overrides: Partial<PreparedSettlement> = {}): PreparedSettlement =>
  ({
    settlementId: '5e000000-0000-4000-8000-000000000001',
    escrowSequence: '100',
    rounds: [{ index: 0, refs: ['r1'], lockHash: 'aa'.repeat(32), releaseHash: 'bb'.repeat(32), recoveryHash: 'cc'.repeat(32) }],
    settledRounds: new Map(),
    releaseUntil: '2026-03-17T12:00:00.000Z',
    strayBalance: '0.00',
    ...overrides,
  }) as PreparedSettlement;
const escrowAt = (sequence: bigint, strayBalance = 0n) => ({ exists: true, sequence, strayBalance });

const test = suite('replaceablePlan');

test('not locked yet: replaced when what is due changed or its window is over, kept otherwise', () => {
  assert.is(replaceablePlan(plan(), escrowAt(100n), null, false, NOW), false);
  assert.is(replaceablePlan(plan(), escrowAt(100n), null, true, NOW), true);
  assert.is(replaceablePlan(plan(), escrowAt(100n), null, false, Date.parse('2026-03-17T12:00:00.000Z')), true);
});

test('not locked yet: replaced when money was paid straight into the escrow since it was planned (its first lock could not empty the balance)', () => {
  assert.is(replaceablePlan(plan(), escrowAt(100n, 1n), null, false, NOW), true);
  assert.is(replaceablePlan(plan({ strayBalance: '10.00' }), escrowAt(100n, 100_000_000n), null, false, NOW), false, 'the balance it pays back');
  const secondRound = plan({
    strayBalance: '10.00',
    rounds: [...plan().rounds, { index: 1, refs: ['r2'], lockHash: 'dd'.repeat(32), releaseHash: 'ee'.repeat(32), recoveryHash: 'ff'.repeat(32) }],
    settledRounds: new Map([[0, { path: 'RELEASE' as const, txHash: 'bb'.repeat(32), merged: false }]]),
  });
  assert.is(replaceablePlan(secondRound, escrowAt(102n), null, false, NOW), false, 'its first lock emptied the balance: later rounds never touch it');
});

test('its lock landed: being carried out (its release or its keyless recovery is next), never replaced', () => {
  assert.is(replaceablePlan(plan(), escrowAt(101n), { successful: true }, true, NOW), false);
  assert.is(replaceablePlan(plan(), escrowAt(101n), { successful: true }, false, Date.parse('2026-04-01T00:00:00.000Z')), false);
});

test('its lock’s sequence taken by another transaction (an older cosigned plan landed), or the lock failed once applied: dead, replaced', () => {
  assert.is(replaceablePlan(plan(), escrowAt(102n), null, true, NOW), true);
  assert.is(replaceablePlan(plan(), escrowAt(102n), null, false, NOW), true);
  assert.is(replaceablePlan(plan(), escrowAt(101n), { successful: false }, false, NOW), true);
});

test('the escrow merged: nothing to replace', () => {
  assert.is(replaceablePlan(plan(), { exists: false, sequence: 0n, strayBalance: 0n }, null, true, NOW), false);
});

test('lockCandidates: the settlements whose next lock takes the escrow’s sequence now (an older cosigned plan among them)', () => {
  const older = plan();
  const current = plan({ settlementId: '5e000000-0000-4000-8000-000000000002', supersedes: older.settlementId });
  const later = plan({ settlementId: '5e000000-0000-4000-8000-000000000003', escrowSequence: '102' });
  assert.is(nextLockSequence(older), 101n);
  assert.is(nextLockSequence(later), 103n);
  assert.equal(lockCandidates([older, current, later], escrowAt(101n)), [older, current]);
  assert.equal(lockCandidates([older, current, later], escrowAt(100n)), []);
  assert.equal(lockCandidates([older], { exists: false, sequence: 0n }), []);
  const settledRound = plan({ settledRounds: new Map([[0, { path: 'RELEASE' as const, txHash: 'bb'.repeat(32), merged: false }]]) });
  assert.equal(lockCandidates([settledRound], escrowAt(101n)), [], 'a settlement with every round settled holds no lock');
});

test.run();
