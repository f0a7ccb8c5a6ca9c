import { holdsAt, type Pool } from '@cagnotte/domain';
import type { AuthContext, RouteAnswer } from '@cagnotte/infra';
import { groupBuyOf, reservationView, type PoolDocument } from '@cagnotte/read-models';
import { factsOf } from '../reservations/facts';
import type { PoolOutcome } from './aggregate';

/** The read model's document as of the command's own revision: the decider let the command through, so the pool exists. */
export const documentOf = (outcome: PoolOutcome): PoolDocument => {
  if (!outcome.state.doc) throw new Error('a pool command answered without a pool');
  return outcome.state.doc.pool;
};

/**
 * The answer of a pool command: the pool as of the command's own revision, rendered by the query side's view from
 * the read model's fold (never from the read model itself, which may already show a later writer). Pure, so it can
 * be written with the events under an Idempotency-Key and replayed unchanged. The engine adds `X-Event-Position`.
 */
export const poolAnswer =
  (auth: AuthContext, status = 200, extra: (outcome: PoolOutcome) => Record<string, unknown> = () => ({}), now: () => Date = () => new Date()) =>
  (outcome: PoolOutcome): RouteAnswer => ({
    status,
    data: { ...groupBuyOf(documentOf(outcome), outcome.revision, { userId: auth.userId }, holdingsOf(outcome.state.pool, auth.userId, now())), ...extra(outcome) },
  });

/** An answer of `status` with `data` computed from the command's own outcome. */
export const answerWith =
  (status: number, data: (outcome: PoolOutcome) => Record<string, unknown>) =>
  (outcome: PoolOutcome): RouteAnswer => ({ status, data: data(outcome) });

/** The buyers holding units (first hold first) and the viewer's own reservations, from the command's own fold. */
const holdingsOf = (pool: Pool, viewerId: string, now: Date) => {
  if (pool.status === 'none') return { buyers: [], mine: [] };
  const at = now.toISOString();
  const first = new Map<string, { pool_id: string; user_id: string; display_name: string; joined_at: Date }>();
  const mine = [];
  for (const r of pool.holdings.byId.values()) {
    if (holdsAt(r, at) && (!first.has(r.buyerId) || Date.parse(r.placedAt) < first.get(r.buyerId)!.joined_at.getTime())) {
      first.set(r.buyerId, { pool_id: pool.id, user_id: r.buyerId, display_name: r.buyerName, joined_at: new Date(r.placedAt) });
    }
    if (r.buyerId === viewerId) mine.push(reservationView(factsOf(pool.id, r, pool.relais), now, pool));
  }
  mine.sort((a, b) => Date.parse(a.placedAt) - Date.parse(b.placedAt) || a.id.localeCompare(b.id));
  return { buyers: [...first.values()], mine };
};
