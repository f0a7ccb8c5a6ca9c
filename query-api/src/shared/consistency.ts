import { ValidationError } from '@cagnotte/domain/errors';
import { comparePositions, parsePosition, type CheckpointWaiter, type Position, type RecentWrites, type RequestContext } from '@cagnotte/infra';

export const MIN_POSITION_HEADER = 'x-min-position';

/** What waiting for `X-Min-Position` takes: the checkpoint waiter, how long a read may wait, this process's recent writes. */
export interface ConsistencyDeps {
  waiter: Pick<CheckpointWaiter, 'isReachable' | 'waitFor'>;
  readYourWritesMs: number;
  /**
   * The last position each session wrote through this process (services.recentWrites). Commands answer without
   * waiting for their projections; the same session's next read here waits for them instead, unasked.
   */
  recentWrites?: Pick<RecentWrites, 'lastOf' | 'latest'>;
}

/** The position the request names in `X-Min-Position`, if any: a forged or malformed one is a 400. */
const askedPosition = async (deps: ConsistencyDeps, ctx: RequestContext<unknown, unknown, unknown>): Promise<Position | null> => {
  const raw = ctx.req.headers[MIN_POSITION_HEADER];
  if (raw === undefined) return null;
  const position = parsePosition(Array.isArray(raw) ? (raw[0] ?? '') : raw);
  if (!position) throw new ValidationError({ 'X-Min-Position': ['must be a position as returned in X-Event-Position ("<commit>-<prepare>")'] });
  // A position no transaction has reached yet can only be forged: refuse it instead of waiting on it.
  if (!(await deps.waiter.isReachable(position))) throw new ValidationError({ 'X-Min-Position': ['is not a position this service has written'] });
  return position;
};

/**
 * Read-your-writes: the read waits (bounded) until the named projections have passed the latest of
 * - `X-Min-Position`: a client that got `X-Event-Position` from a command sends it back (across processes);
 * - the furthest position any command of this process wrote (commands answer without waiting for projections, so a
 *   write that answered is seen by every later read here, the writer's and anyone else's; usually already reached,
 *   which the waiter knows without a query).
 * With none, the read does not wait. `X-Consistency` says whether the wait reached it (`fresh`) or timed out (`stale`).
 */
export const waitForMinPosition = async (deps: ConsistencyDeps, ctx: RequestContext<unknown, unknown, unknown>, projections: string[]): Promise<void> => {
  const asked = await askedPosition(deps, ctx);
  const later = (a: Position | null, b: Position | null) => (a && b ? (comparePositions(a, b) >= 0 ? a : b) : (a ?? b));
  const position = later(asked, later(deps.recentWrites?.lastOf(ctx.auth?.sessionId) ?? null, deps.recentWrites?.latest() ?? null));
  if (!position) return;
  const reached = await deps.waiter.waitFor(projections, position, deps.readYourWritesMs);
  ctx.res.setHeader('X-Consistency', reached ? 'fresh' : 'stale');
};
