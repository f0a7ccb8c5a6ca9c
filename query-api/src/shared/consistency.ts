import { ValidationError } from '@cagnotte/domain/errors';
import { parsePosition, type CheckpointWaiter, type RequestContext } from '@cagnotte/infra';

export const MIN_POSITION_HEADER = 'x-min-position';

/** What waiting for `X-Min-Position` takes: the checkpoint waiter and how long a read may wait. */
export interface ConsistencyDeps {
  waiter: Pick<CheckpointWaiter, 'isReachable' | 'waitFor'>;
  readYourWritesMs: number;
}

/**
 * Read-your-writes across processes: a client that got `X-Event-Position` from a command sends it back as
 * `X-Min-Position`; the read waits (bounded) until the named projections have passed it.
 */
export const waitForMinPosition = async (deps: ConsistencyDeps, ctx: RequestContext<unknown, unknown, unknown>, projections: string[]): Promise<void> => {
  const raw = ctx.req.headers[MIN_POSITION_HEADER];
  if (raw === undefined) return;
  const position = parsePosition(Array.isArray(raw) ? (raw[0] ?? '') : raw);
  if (!position) throw new ValidationError({ 'X-Min-Position': ['must be a position as returned in X-Event-Position ("<commit>-<prepare>")'] });
  // A position no transaction has reached yet can only be forged: refuse it instead of waiting on it.
  if (!(await deps.waiter.isReachable(position))) throw new ValidationError({ 'X-Min-Position': ['is not a position this service has written'] });
  const reached = await deps.waiter.waitFor(projections, position, deps.readYourWritesMs);
  ctx.res.setHeader('X-Consistency', reached ? 'fresh' : 'stale');
};
