import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RecentWrites, formatPosition, type Position, type RequestContext } from '@cagnotte/infra';
import { waitForMinPosition, type ConsistencyDeps } from './consistency';

/**
 * Read-your-writes on the read side: commands answer without waiting for their projections, so a read waits for the
 * later of X-Min-Position and the last position its own session wrote through this process; with neither, it does not wait.
 */
const test = suite('consistency: X-Min-Position and the session’s own last write');

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

test('a session that wrote here waits for its own write without asking; another session does not wait', async () => {
  const { deps, waited, recentWrites, ctx, headers } = setup();
  recentWrites.record('s1', at(10n, 3n));
  await waitForMinPosition(deps, ctx('s1'), ['pools']);
  assert.equal(waited, [{ projections: ['pools'], position: '10-3' }]);
  assert.is(headers['X-Consistency'], 'fresh');
  await waitForMinPosition(deps, ctx('s2'), ['pools']);
  await waitForMinPosition(deps, ctx(null), ['pools']);
  assert.is(waited.length, 1, 'nothing to wait for');
});

test('the later of X-Min-Position and the session’s write, ordered as numbers (9-50 is before 10-2)', async () => {
  const { deps, waited, recentWrites, ctx } = setup();
  recentWrites.record('s1', at(10n, 2n));
  await waitForMinPosition(deps, ctx('s1', '9-50'), ['pools']);
  await waitForMinPosition(deps, ctx('s1', '11-1'), ['pools']);
  await waitForMinPosition(deps, ctx(null, '9-50'), ['pools']);
  assert.equal(waited.map((w) => w.position), ['10-2', '11-1', '9-50']);
});

test.run();
