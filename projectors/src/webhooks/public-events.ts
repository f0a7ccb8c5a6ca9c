import type { Knex } from 'knex';
import {
  PUBLIC_EVENTS_CHANNEL,
  PUBLIC_EVENTS_TABLE,
  PUBLIC_EVENT_OWNERS_TABLE,
  hasPublicEvents,
  ownerRecordOf,
  ownerKeyOf,
  publicEventRowOf,
  publicEventsOf,
  type PoolOwner,
  type PublicEventOwnerRow,
  type PublicEventRowValues,
} from '@cagnotte/read-models';
import { publicEventsPayload } from '@cagnotte/infra';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';
import { selectWhereIn, upsertRows, type Columns } from '../sql';

const EVENT_COLUMNS: Columns = {
  commit_position: 'xid8',
  prepare_position: 'bigint',
  idx: 'smallint',
  id: 'text',
  tenant_id: 'uuid',
  owner_id: 'uuid',
  type: 'text',
  subject: 'text',
  sequence: 'bigint',
  api_version: 'text',
  created_at: 'timestamptz',
  data: 'jsonb',
};
const OWNER_COLUMNS: Columns = { resource_id: 'text', tenant_id: 'uuid', owner_id: 'uuid', livemode: 'boolean', pool_type: 'text' };

/**
 * The public feed (rm_public_events): each internal event through the catalogue (read-models/src/webhooks/catalogue.ts),
 * its 0..n public events at its position plus their index. A batch reads the owners of the pools it touches once,
 * maps every event in memory, and writes each table with one INSERT … ON CONFLICT DO NOTHING: a replayed or
 * redelivered event finds its rows (same position, same id) and changes nothing. Then it notifies `public_events`
 * with the tenants it wrote for (delivered at commit), which wakes the long-polls and the webhook dispatcher.
 */
const applyPublicEvents = async (trx: Knex.Transaction, batch: ProjectedEvent[], table: TableMap): Promise<void> => {
  const events = batch.filter((e) => hasPublicEvents(e.type));
  if (events.length === 0) return;
  const owners = new Map<string, PoolOwner>();
  const wanted = [...new Set(events.map(ownerKeyOf).filter((id): id is string => id !== null))];
  if (wanted.length > 0) {
    const known = await selectWhereIn<PublicEventOwnerRow>(trx, table(PUBLIC_EVENT_OWNERS_TABLE), ['resource_id', 'tenant_id', 'owner_id', 'livemode', 'pool_type'], 'resource_id', 'text', wanted);
    for (const r of known) {
      owners.set(r.resource_id, {
        tenantId: r.tenant_id,
        ownerId: r.owner_id,
        ...(r.livemode === null ? {} : { livemode: r.livemode }),
        ...(r.pool_type === 'GROUPS' || r.pool_type === 'FUNDING' ? { poolType: r.pool_type } : {}),
      });
    }
  }
  const ownerRows: PublicEventOwnerRow[] = [];
  const rows: PublicEventRowValues[] = [];
  for (const e of events) {
    publicEventsOf(e, owners).forEach((draft, idx) =>
      rows.push(publicEventRowOf({ id: e.id, revision: e.revision, position: e.position, occurredAt: e.metadata.occurredAt }, draft, idx)),
    );
    const owner = ownerRecordOf(e);
    if (owner && !owners.has(owner.resourceId)) {
      const { resourceId, ...known } = owner;
      owners.set(resourceId, known);
      ownerRows.push({ resource_id: resourceId, tenant_id: owner.tenantId, owner_id: owner.ownerId, livemode: owner.livemode ?? null, pool_type: owner.poolType ?? null });
    }
  }
  await upsertRows(trx, table(PUBLIC_EVENT_OWNERS_TABLE), OWNER_COLUMNS, ['resource_id'], ownerRows, { update: false });
  await upsertRows(trx, table(PUBLIC_EVENTS_TABLE), EVENT_COLUMNS, ['commit_position', 'prepare_position', 'idx'], rows, { update: false });
  // A rebuild writes tables no reader follows: nobody to wake.
  if (rows.length === 0 || table(PUBLIC_EVENTS_TABLE) !== PUBLIC_EVENTS_TABLE) return;
  // The waker's own payload rule (infra/src/webhooks/feed-waker.ts): the batch's tenants, or '' (every tenant) past
  // what one payload holds.
  await trx.raw('SELECT pg_notify(?, ?)', [PUBLIC_EVENTS_CHANNEL, publicEventsPayload(rows.map((r) => r.tenant_id))]);
};

export const publicEventsProjection: Projection = {
  name: 'public-events',
  tables: [PUBLIC_EVENTS_TABLE, PUBLIC_EVENT_OWNERS_TABLE],
  handles: (type) => hasPublicEvents(type),
  apply: (trx, event, table) => applyPublicEvents(trx, [event], table),
  applyMany: applyPublicEvents,
};
