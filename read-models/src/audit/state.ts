import { z } from 'zod';
import type { PoolEvent } from '@cagnotte/event-schemas';
import { foldPool, type PoolDocument } from '../pools/fold';
import { GroupBuy, groupBuyOf } from '../pools/view';
import { foldReservation, type ReservationDoc } from '../reservations/fold';
import { ReservationSchema, reservationView } from '../reservations/view';
import type { AuditEventRow } from './tables';

/**
 * The state of a pool at a point of its history: its stream's events up to and including that point, folded with the
 * read models' own folds (foldPool, foldReservation) and rendered with their own views, so the state at the head is
 * exactly what the pool and reservation reads show. Pure: the route and the CLI feed it events, from the audit read
 * model or from the event store.
 */

/** An event of a pool stream with its data upcast to the current version (what the folds take). */
export interface StateEvent {
  id: string;
  revision: bigint;
  position: { commit: bigint; prepare: bigint };
  type: string;
  data: unknown;
  metadata: { tenantId: string | null; occurredAt: string };
}

export const stateEventOfRow = (r: AuditEventRow): StateEvent => ({
  id: r.event_id,
  revision: BigInt(r.revision),
  position: { commit: BigInt(r.commit_position), prepare: BigInt(r.prepare_position) },
  type: r.type,
  data: r.current_data,
  metadata: r.metadata as StateEvent['metadata'],
});

/** A point of a history: a feed position, a time, or a stream revision. */
export type At =
  | { kind: 'position'; position: { commit: bigint; prepare: bigint } }
  | { kind: 'time'; time: Date }
  | { kind: 'revision'; revision: bigint };

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `"<commit>-<prepare>"`, a plain revision (`12`), or an ISO-8601 date-time with its zone; null for anything else. */
export const parseAt = (raw: string): At | null => {
  const s = raw.trim();
  const position = /^(\d{1,20})-(\d{1,20})$/.exec(s);
  if (position) return { kind: 'position', position: { commit: BigInt(position[1]!), prepare: BigInt(position[2]!) } };
  if (/^\d{1,18}$/.test(s)) return { kind: 'revision', revision: BigInt(s) };
  if (ISO_TIME.test(s) && !Number.isNaN(Date.parse(s))) return { kind: 'time', time: new Date(s) };
  return null;
};

const isAfter = (e: StateEvent, at: At): boolean => {
  switch (at.kind) {
    case 'revision':
      return e.revision > at.revision;
    case 'position':
      return e.position.commit > at.position.commit || (e.position.commit === at.position.commit && e.position.prepare > at.position.prepare);
    case 'time':
      return Date.parse(e.metadata.occurredAt) > at.time.getTime();
  }
};

/**
 * The events up to and including `at`, always a prefix of the stream (events in revision order): the stream stops at
 * its first event past `at`, so the state folded from it is one the pool really passed through, even if a later
 * event carries an earlier `occurredAt`.
 */
export const cutAt = <E extends StateEvent>(events: readonly E[], at: At | null): E[] => {
  if (!at) return [...events];
  const past = events.findIndex((e) => isAfter(e, at));
  return past === -1 ? [...events] : events.slice(0, past);
};

/**
 * A view of the pool at the point, for the escrow (and whatever comes after it): its own fold over the same events,
 * and its own rendering. Registered by name; the name becomes a key of the answer beside `pool` and `reservations`.
 */
export interface ExtraFold<S = any, V = unknown> {
  initial: () => S;
  fold: (state: S, event: StateEvent) => S;
  view: (state: S, context: { at: Date; pool: PoolDocument }) => V;
}
export type ExtraFolds = Readonly<Record<string, ExtraFold>>;

export const AsOfSchema = z.object({
  position: z.string().describe('"<commit>-<prepare>" of the last event included'),
  revision: z.number().int(),
  eventId: z.string().uuid(),
  occurredAt: z.string(),
});

export const PoolStateSchema = z
  .object({
    pool: GroupBuy.describe('The pool as its organiser saw it then (the owner view)'),
    reservations: z.array(ReservationSchema).describe('Every reservation placed by then, oldest first, rendered at the point in time (a PENDING past its expiry reads EXPIRED)'),
    asOf: AsOfSchema,
  })
  .catchall(z.unknown())
  .describe('PoolState');
export type PoolStateView = z.infer<typeof PoolStateSchema>;

const reservationIdOf = (data: unknown): string | null => {
  const id = data !== null && typeof data === 'object' ? (data as { reservationId?: unknown }).reservationId : undefined;
  return typeof id === 'string' ? id : null;
};

/**
 * Folds the events (a prefix of a pool stream, oldest first) and renders them at `at` (default: when the last one
 * occurred). Null when they hold no pool yet. Events the folds do not know are skipped by the folds themselves, so a
 * type added later needs nothing here.
 */
export const poolStateAt = (events: readonly StateEvent[], options: { at?: Date; extraFolds?: ExtraFolds } = {}): PoolStateView | null => {
  const last = events[events.length - 1];
  if (!last) return null;
  const extraFolds = Object.entries(options.extraFolds ?? {});
  let pool: ReturnType<typeof foldPool> = null;
  const reservations = new Map<string, ReservationDoc>();
  const extras = new Map(extraFolds.map(([name, f]) => [name, f.initial()]));
  for (const e of events) {
    const event = { type: e.type, data: e.data } as PoolEvent;
    pool = foldPool(pool, event, e.revision);
    const id = reservationIdOf(e.data);
    if (id !== null) {
      const next = foldReservation(reservations.get(id) ?? null, event, e.revision, e.metadata.tenantId);
      if (next) reservations.set(id, next);
    }
    for (const [name, f] of extraFolds) extras.set(name, f.fold(extras.get(name), e));
  }
  if (!pool) return null;
  const at = options.at ?? new Date(last.metadata.occurredAt);
  const docs = [...reservations.values()].sort((a, b) => Date.parse(a.facts.placedAt) - Date.parse(b.facts.placedAt) || a.facts.id.localeCompare(b.facts.id));
  const views = docs.map((d) => reservationView(d.facts, at));
  // The organiser's view of its members: the buyers holding units then (a live PENDING or a PAID), first hold first.
  const buyers = new Map<string, { pool_id: string; user_id: string; display_name: string; joined_at: Date }>();
  for (const r of views) {
    if ((r.status === 'PENDING' || r.status === 'PAID') && !buyers.has(r.buyerId)) {
      buyers.set(r.buyerId, { pool_id: pool.pool.id, user_id: r.buyerId, display_name: r.buyerName, joined_at: new Date(r.placedAt) });
    }
  }
  const organiserId = pool.pool.organiserId;
  const rendered = groupBuyOf(pool.pool, pool.revision, { userId: organiserId }, { buyers: [...buyers.values()], mine: views.filter((r) => r.buyerId === organiserId) });
  const asOf = { position: `${last.position.commit}-${last.position.prepare}`, revision: Number(last.revision), eventId: last.id, occurredAt: last.metadata.occurredAt };
  const extraViews = Object.fromEntries(extraFolds.map(([name, f]) => [name, f.view(extras.get(name), { at, pool: pool!.pool })]));
  return { ...extraViews, pool: rendered, reservations: views, asOf };
};
