import type { Knex } from 'knex';
import { isPoolEvent, type PoolEvent } from '@cagnotte/event-schemas';
import { POOL_TABLES, foldPool, organiserMemberOf, pickupPointRowsOf, relaisChanged, type PoolDoc, type PoolRow } from '@cagnotte/read-models';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';
import { deleteWhereIn, selectWhereIn, upsertRows, type Columns } from '../sql';

/** The pool events that change the read model (the COMMISSION mandate shows in none of its views). */
const HANDLED = new Set<PoolEvent['type']>([
  'PoolCreated',
  'PoolDraftUpdated',
  'PoolPublished',
  'PoolVisibilityChanged',
  'PoolListed',
  'PoolEscrowOpened',
  'PoolCountryChanged',
  'PoolArchived',
  'PoolUnarchived',
  // foldPool follows the status and the closing; without these the rows would stay OPEN after a pool closed.
  'PoolClosed',
  'PoolCancelled',
  'PoolDelivered',
  'PoolSettled',
  // A point that became unavailable: the pool's pick-up point rows say so.
  'PickupPointUnavailable',
]);

type ProjectedPoolEvent = Extract<ProjectedEvent, PoolEvent>;

const POOL_COLUMNS: Columns = {
  id: 'uuid',
  tenant_id: 'uuid',
  organiser_id: 'uuid',
  type: 'text',
  status: 'text',
  marketplace_visibility: 'text',
  archived_at: 'timestamptz',
  country: 'text',
  title: 'text',
  doc: 'jsonb',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  revision: 'bigint',
};
const MEMBER_COLUMNS: Columns = { pool_id: 'uuid', user_id: 'uuid', tenant_id: 'uuid', display_name: 'text', role: 'text', joined_at: 'timestamptz' };
const POINT_COLUMNS: Columns = {
  pool_id: 'uuid',
  point_id: 'text',
  tenant_id: 'uuid',
  sort_order: 'integer',
  name: 'text',
  address: 'text',
  postal_code: 'text',
  city: 'text',
  country: 'text',
  lat: 'double precision',
  lng: 'double precision',
  opening_hours: 'text',
  available: 'boolean',
  unavailable_reason: 'text',
};

const rowValues = ({ pool: p, revision }: PoolDoc) => ({
  id: p.id,
  tenant_id: p.tenantId,
  organiser_id: p.organiserId,
  type: p.type,
  status: p.status,
  marketplace_visibility: p.fields.marketplaceVisibility,
  archived_at: p.archivedAt,
  country: p.fields.country,
  title: p.fields.title,
  doc: p,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
  revision: revision.toString(),
});

const pointRows = ({ pool: p }: PoolDoc) => pickupPointRowsOf(p).map((row) => ({ ...row, tenant_id: p.tenantId }));

/**
 * Folds a batch in memory over the rows it touches (with the read model's own fold, foldPool), then writes each
 * table once, as prepared statements: one select (of the pools the batch does not create), one multi-row upsert
 * (which never moves a row back to an older revision), and pick-up point and member writes only for the pools that
 * need them (points only for rows the upsert moved).
 */
const applyPoolEvents = async (trx: Knex.Transaction, batch: ProjectedEvent[], table: TableMap): Promise<void> => {
  const events = batch.filter((e): e is ProjectedPoolEvent => isPoolEvent(e));
  if (events.length === 0) return;
  // A pool whose first event here is its creation (revision 0) has no row yet: only the others are read.
  const first = new Map<string, ProjectedPoolEvent>();
  for (const e of events) if (!first.has(e.data.poolId)) first.set(e.data.poolId, e);
  const ids = [...first.keys()];
  const existing = ids.filter((id) => first.get(id)!.revision !== 0n);
  const rows = await selectWhereIn<Pick<PoolRow, 'id' | 'doc' | 'revision'>>(trx, table(POOL_TABLES.pools), ['id', 'doc', 'revision'], 'id', 'uuid', existing);
  const before = new Map<string, PoolDoc>(rows.map((r) => [r.id, { pool: r.doc, revision: BigInt(r.revision) }]));
  const after = new Map(before);
  const created: PoolDoc[] = [];
  for (const e of events) {
    const id = e.data.poolId;
    const prev = after.get(id) ?? null;
    const next = foldPool(prev, e, e.revision);
    if (!next || next === prev) continue;
    after.set(id, next);
    if (e.type === 'PoolCreated') created.push(next);
  }
  const changed = ids.filter((id) => after.get(id) !== before.get(id)).map((id) => after.get(id)!);
  if (changed.length === 0) return;
  const written = new Set(await upsertRows(trx, table(POOL_TABLES.pools), POOL_COLUMNS, ['id'], changed.map(rowValues), { where: 't.revision < excluded.revision' }));
  const members = created.map(({ pool: p }) => ({ ...organiserMemberOf(p), tenant_id: p.tenantId }));
  await upsertRows(trx, table(POOL_TABLES.members), MEMBER_COLUMNS, ['pool_id', 'user_id'], members, { update: false });
  // Only the pools whose row moved: a replay that the guard refused leaves their points too.
  const resync = changed.filter((doc) => written.has(doc.pool.id) && relaisChanged(before.get(doc.pool.id) ?? null, doc));
  if (resync.length > 0) {
    await deleteWhereIn(trx, table(POOL_TABLES.pickupPoints), 'pool_id', 'uuid', resync.map((d) => d.pool.id));
    await upsertRows(trx, table(POOL_TABLES.pickupPoints), POINT_COLUMNS, ['pool_id', 'point_id'], resync.flatMap(pointRows), { update: false });
  }
};

/** GroupBuy read model: pool rows (their document folded by read-models' foldPool), their members and pick-up points. */
export const poolsProjection: Projection = {
  name: 'pools',
  tables: [POOL_TABLES.pools, POOL_TABLES.members, POOL_TABLES.pickupPoints],
  handles: (type) => HANDLED.has(type as PoolEvent['type']),
  apply: (trx, event, table) => applyPoolEvents(trx, [event], table),
  applyMany: applyPoolEvents,
};
