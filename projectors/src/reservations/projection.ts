import type { Knex } from 'knex';
import {
  RESERVATION_TABLES,
  docOfRow,
  foldReservation,
  isReservationEvent,
  reservationRowValues,
  type ReservationDoc,
  type ReservationFoldEvent,
  type ReservationRow,
} from '@cagnotte/read-models';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';

type ProjectedReservationEvent = Extract<ProjectedEvent, ReservationFoldEvent>;

/**
 * Folds a batch in memory over the rows it touches (with the read model's own fold, foldReservation), then writes
 * them in one multi-row upsert, inside the checkpoint's transaction. The events of one reservation are its own and
 * the escrow's receipts, disputes and settlement lines; other events of the feed are ignored.
 */
const applyReservationEvents = async (trx: Knex.Transaction, batch: ProjectedEvent[], table: TableMap): Promise<void> => {
  const events = batch.filter((e): e is ProjectedReservationEvent => isReservationEvent(e));
  const ids = [...new Set(events.map((e) => e.data.reservationId))];
  if (ids.length === 0) return;
  const rows = (await trx<ReservationRow>(table(RESERVATION_TABLES.reservations)).whereIn('id', ids)) as ReservationRow[];
  const before = new Map<string, ReservationDoc>(rows.map((r) => [r.id, docOfRow(r)]));
  const after = new Map(before);
  for (const e of events) {
    const id = e.data.reservationId;
    const prev = after.get(id) ?? null;
    const next = foldReservation(prev, e, e.revision, e.metadata.tenantId);
    if (next && next !== prev) after.set(id, next);
  }
  const changed = ids.filter((id) => after.get(id) !== before.get(id)).map((id) => after.get(id)!);
  for (let i = 0; i < changed.length; i += 1000) {
    await trx(table(RESERVATION_TABLES.reservations)).insert(changed.slice(i, i + 1000).map(reservationRowValues)).onConflict('id').merge();
  }
};

/** Reservations read model: a row per reservation (buyers' dashboards, pool members, organisers' dashboards). */
export const reservationsProjection: Projection = {
  name: 'reservations',
  tables: [RESERVATION_TABLES.reservations],
  handles: (type) => isReservationEvent({ type }),
  apply: (trx, event, table) => applyReservationEvents(trx, [event], table),
  applyMany: applyReservationEvents,
};
