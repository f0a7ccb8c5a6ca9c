import type { Knex } from 'knex';
import {
  RESERVATION_TABLES,
  docOfRow,
  foldPointUnavailable,
  foldReservation,
  isPointUnavailableEvent,
  isReservationEvent,
  reservationRowValues,
  type ReservationDoc,
  type ReservationFoldEvent,
  type ReservationRow,
} from '@cagnotte/read-models';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';
import { selectWhereIn, upsertRows, type Columns } from '../sql';

/** rm_reservations as reservationRowValues fills it (its jsonb columns as JSON text). */
const RESERVATION_COLUMNS: Columns = {
  id: 'uuid',
  pool_id: 'uuid',
  tenant_id: 'uuid',
  buyer_id: 'uuid',
  buyer_name: 'text',
  status: 'text',
  lines: 'text::jsonb',
  pledge: 'text',
  amount: 'text',
  deposit_fee: 'text',
  relais_id: 'text',
  pickup_point_unavailable: 'text::jsonb',
  placed_at: 'timestamptz',
  expires_at: 'timestamptz',
  signed: 'text::jsonb',
  payment: 'text::jsonb',
  late_payments: 'text::jsonb',
  ended_at: 'timestamptz',
  escrow: 'text::jsonb',
  revision: 'bigint',
};

type ProjectedReservationEvent = Extract<ProjectedEvent, ReservationFoldEvent>;
type ProjectedPointEvent = Extract<ProjectedEvent, { type: 'PickupPointUnavailable' }>;

/** The rows of the reservations that chose one of these points of these pools (a point's unavailability is theirs). */
const rowsAtPoints = async (trx: Knex.Transaction, table: string, points: ProjectedPointEvent[]): Promise<ReservationRow[]> => {
  if (points.length === 0) return [];
  const pairs = [...new Map(points.map((e) => [`${e.data.poolId}|${e.data.pointId}`, e.data])).values()];
  return trx(table)
    .select('*')
    .where((q) => {
      for (const p of pairs) void q.orWhere((w) => void w.where('pool_id', p.poolId).andWhere('relais_id', p.pointId));
    });
};

/**
 * Folds a batch in memory over the rows it touches (with the read model's own fold, foldReservation), then writes
 * them in one multi-row upsert, inside the checkpoint's transaction (both prepared statements; the upsert never moves
 * a row back to an older revision). The events of one reservation are its own and
 * the escrow's receipts, disputes and settlement lines; a point of the pool becoming unavailable is an event of every
 * reservation that chose it (foldPointUnavailable); other events of the feed are ignored.
 */
const applyReservationEvents = async (trx: Knex.Transaction, batch: ProjectedEvent[], table: TableMap): Promise<void> => {
  const events = batch.filter((e): e is ProjectedReservationEvent | ProjectedPointEvent => isReservationEvent(e) || isPointUnavailableEvent(e));
  const points = events.filter((e): e is ProjectedPointEvent => isPointUnavailableEvent(e));
  const ids = [...new Set(events.flatMap((e) => (isPointUnavailableEvent(e) ? [] : [e.data.reservationId])))];
  if (ids.length === 0 && points.length === 0) return;
  const rows = [
    ...(await selectWhereIn<ReservationRow>(trx, table(RESERVATION_TABLES.reservations), ['*'], 'id', 'uuid', ids)),
    ...(await rowsAtPoints(trx, table(RESERVATION_TABLES.reservations), points)),
  ];
  const before = new Map<string, ReservationDoc>(rows.map((r) => [r.id, docOfRow(r)]));
  const after = new Map(before);
  for (const e of events) {
    if (isPointUnavailableEvent(e)) {
      for (const [id, doc] of after) {
        const next = foldPointUnavailable(doc, e, e.revision);
        if (next !== doc) after.set(id, next);
      }
      continue;
    }
    const id = e.data.reservationId;
    const prev = after.get(id) ?? null;
    const next = foldReservation(prev, e, e.revision, e.metadata.tenantId);
    if (next && next !== prev) after.set(id, next);
  }
  const changed = [...after.keys()].filter((id) => after.get(id) !== before.get(id)).map((id) => after.get(id)!);
  await upsertRows(trx, table(RESERVATION_TABLES.reservations), RESERVATION_COLUMNS, ['id'], changed.map(reservationRowValues), { where: 't.revision < excluded.revision' });
};

/** Reservations read model: a row per reservation (buyers' dashboards, pool members, organisers' dashboards). */
export const reservationsProjection: Projection = {
  name: 'reservations',
  tables: [RESERVATION_TABLES.reservations],
  handles: (type) => isReservationEvent({ type }) || isPointUnavailableEvent({ type }),
  apply: (trx, event, table) => applyReservationEvents(trx, [event], table),
  applyMany: applyReservationEvents,
};
