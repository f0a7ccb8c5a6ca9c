import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RecentWrites, formatPosition, type Position, type RequestContext } from '@cagnotte/infra';
import { waitForMinPosition, type ConsistencyDeps } from './consistency';

/**
 * Read-your-writes on the read side: commands answer without waiting for their projections, so a read waits for the
 * latest of X-Min-Position and the furthest position any command of this process wrote (the writer's or anyone's); with
 * neither, it does not wait.
 */
const test = suite('consistency: X-Min-Position and this process’s own writes');

const at = (commit: bigint, prepare: bigint): Position => ({ commit, prepare });

const setup = () => {
  const waited: Array<{ projections: string[]; position: string }> = [];
  const recentWrites = new RecentWrites();
  const deps: ConsistencyDeps = {
    waiter: {
      isReachable: async () => true,
      waitFor: async (projections: string[], position: Position) => (waited.push({ projections, position: formatPosition(position) }), true),
    },
    readYourWritesMs: 100,
    recentWrites,
  };
  const headers: Record<string, string> = {};
  const ctx = (session: string | null, minPosition?: string) =>
    ({
      req: { headers: minPosition ? { 'x-min-position': minPosition } : {} },
      res: { setHeader: (k: string, v: string) => void (headers[k] = v) },
      auth: session ? { userId: 'u', tenantId: 't', sessionId: session, deviceId: 'd' } : null,
    }) as unknown as RequestContext<unknown, unknown, unknown>;
  return { deps, waited, recentWrites, ctx, headers };
};

test('before any command wrote here, a read without X-Min-Position does not wait', async () => {
  const { deps, waited, ctx } = setup();
  await waitForMinPosition(deps, ctx('s1'), ['pools']);
  await waitForMinPosition(deps, ctx(null), ['pools']);
  assert.is(waited.length, 0, 'nothing to wait for');
});

test('after a command of this process answered, every read here waits for it: the writer, another session, anonymous', async () => {
  const { deps, waited, recentWrites, ctx, headers } = setup();
  recentWrites.record('s1', at(10n, 3n));
  await waitForMinPosition(deps, ctx('s1'), ['pools']);
  assert.equal(waited, [{ projections: ['pools'], position: '10-3' }]);
  assert.is(headers['X-Consistency'], 'fresh');
  await waitForMinPosition(deps, ctx('s2'), ['pools']);
  await waitForMinPosition(deps, ctx(null), ['pools']);
  assert.equal(waited.map((w) => w.position), ['10-3', '10-3', '10-3']);
});

test('a job’s write (no session) counts too, and the furthest write is kept, ordered as numbers', async () => {
  const { deps, waited, recentWrites, ctx } = setup();
  recentWrites.record(null, at(10n, 2n));
  recentWrites.record('s1', at(9n, 50n));
  await waitForMinPosition(deps, ctx('s1'), ['pools']);
  assert.equal(waited.map((w) => w.position), ['10-2']);
});

test('the later of X-Min-Position and this process’s writes, ordered as numbers (9-50 is before 10-2)', async () => {
  const { deps, waited, recentWrites, ctx } = setup();
  await waitForMinPosition(deps, ctx(null, '9-50'), ['pools']);
  recentWrites.record('s1', at(10n, 2n));
  await waitForMinPosition(deps, ctx('s1', '9-50'), ['pools']);
  await waitForMinPosition(deps, ctx('s2', '11-1'), ['pools']);
  assert.equal(waited.map((w) => w.position), ['9-50', '10-2', '11-1']);
});

test.run();
