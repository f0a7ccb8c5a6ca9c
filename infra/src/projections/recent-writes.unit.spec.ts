import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RecentWrites } from './recent-writes';

const Writes = suite('recent writes (read-your-writes per session)');

const at = (commit: bigint, prepare: bigint) => ({ commit, prepare });

Writes('keeps the furthest position a session wrote, ordered as numbers (9 before 10)', () => {
  const writes = new RecentWrites();
  writes.record('s1', at(10n, 2n));
  writes.record('s1', at(9n, 50n));
  assert.equal(writes.lastOf('s1'), at(10n, 2n), 'an earlier position never replaces a later one');
  writes.record('s1', at(10n, 11n));
  assert.equal(writes.lastOf('s1'), at(10n, 11n));
  assert.is(writes.lastOf('s2'), null);
  assert.is(writes.lastOf(null), null);
});

Writes('bounded: the least recently written session is forgotten first', () => {
  const writes = new RecentWrites(2);
  writes.record('a', at(1n, 1n));
  writes.record('b', at(2n, 1n));
  writes.record('a', at(3n, 1n));
  writes.record('c', at(4n, 1n));
  assert.is(writes.size, 2);
  assert.is(writes.lastOf('b'), null);
  assert.equal(writes.lastOf('a'), at(3n, 1n));
  assert.equal(writes.lastOf('c'), at(4n, 1n));
});

Writes('latest: the furthest position any command of the process wrote, a job’s included, ordered as numbers', () => {
  const writes = new RecentWrites();
  assert.is(writes.latest(), null);
  writes.record(null, at(10n, 2n));
  writes.record('s1', at(9n, 50n));
  assert.equal(writes.latest(), at(10n, 2n));
  assert.equal(writes.lastOf('s1'), at(9n, 50n));
  writes.record('s2', at(10n, 11n));
  assert.equal(writes.latest(), at(10n, 11n));
});

Writes.run();
