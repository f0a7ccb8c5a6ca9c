import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { matchesEnabledEvents } from './type-match';

const test = suite('enabledEvents matching');

test('given *, a prefix glob or an exact type, then only the types they name match', () => {
  assert.ok(matchesEnabledEvents(['*'], 'payout.settled'));
  assert.ok(matchesEnabledEvents(['reservation.*'], 'reservation.paid'));
  assert.not.ok(matchesEnabledEvents(['reservation.*'], 'reservations.paid'));
  assert.not.ok(matchesEnabledEvents(['pool.*'], 'pools.x'));
  assert.ok(matchesEnabledEvents(['pool.closed', 'payout.settled'], 'payout.settled'));
  assert.not.ok(matchesEnabledEvents(['pool.closed'], 'pool.closed_early'));
  assert.not.ok(matchesEnabledEvents([], 'pool.closed'));
});

test.run();
