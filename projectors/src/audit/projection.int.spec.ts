import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { comparePositions, formatPosition, type NewEvent, type RecordedEvent } from '@cagnotte/infra';
import { ProjectorRunner, applyBatch, type Projection, type TableMap } from '../runtime';
import { silent, specKnex, specStore, toNew, uniq } from '../spec-support';
import { auditProjection } from './projection';

/**
 * The audit projection on copies of its tables (a rebuild here must not swap the live tables other specs read): one
 * event at a time, one batch, a replay and a rebuild from position 0 write the same rows; the rows hold each pool
 * event as stored, whatever its type, with its hash links.
 */
const Audit = suite('audit projection');

const onCopies = async (): Promise<Projection> => {
  const prefix = uniq('spec_aud');
  const copies = new Map(auditProjection.tables.map((t) => [t, `${prefix}_${t}`]));
  for (const [live, copy] of copies) await specKnex().raw('CREATE TABLE ?? (LIKE ?? INCLUDING ALL)', [copy, live]);
  const to = (table: TableMap): TableMap => (t) => table(copies.get(t) ?? t);
  return {
    name: prefix,
    tables: [...copies.values()],
    handles: auditProjection.handles,
    apply: (trx, e, table) => auditProjection.apply(trx, e, to(table)),
    applyMany: (trx, es, table) => auditProjection.applyMany!(trx, es, to(table)),
  };
};

const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();
const hex = (c: string, n: number) => c.repeat(n);

/** A tenant that grants two auditors and revokes one; a pool created at schema version 1, published, reserved and paid. */
const history = () => {
  const tenantId = randomUUID();
  const slug = `spec-${tenantId.slice(0, 8)}`;
  const [alice, bob, organiserId, buyerId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const poolId = randomUUID();
  const reservationId = randomUUID();
  const v1Created: NewEvent = {
    id: randomUUID(),
    type: 'PoolCreated',
    schemaVersion: 1,
    data: {
      poolId, tenantId, type: 'GROUPS', organiserId, organiserName: 'Spec Organiser', createdAt: at(0),
      title: 'Old pool', description: '', country: 'FR', currency: 'EUR', marketplaceVisibility: 'PRIVATE',
      config: { units: [{ id: 'u1', label: 'Panier', price: '12.50' }], legacyKey: 'free-form, before config was closed' },
      sellerId: null, payoutAccount: null, organiserCommissionPercent: null, targetAmount: null, deadline: null,
    },
    metadata: { tenantId, actor: { kind: 'user', id: organiserId }, correlationId: randomUUID(), causationId: null, occurredAt: at(0) },
  };
  const poolEvents: DomainEvent[] = [
    { type: 'PoolPublished', data: { poolId, publishedAt: at(1) } },
    {
      type: 'ReservationPlaced',
      data: { poolId, reservationId, buyerId, buyerName: 'Bea', lines: [{ unitId: 'u1', quantity: 2, unitPrice: '12.50' }], pledge: null, amount: '25.00', relaisId: null, expiresAt: at(30), placedAt: at(2) },
    },
    { type: 'ReservationPaid', data: { poolId, reservationId, buyerId, txHash: hex('a', 64), ledger: 42, balanceId: hex('b', 72), amount: '25.00', via: 'txHash', paidAt: at(3) } },
  ];
  const tenantEvents: DomainEvent[] = [
    { type: 'TenantCreated', data: { tenantId, slug, name: 'Spec', whiteLabel: false, approvedOrigins: [], createdAt: at(0) } },
    { type: 'TenantAuditorGranted', data: { tenantId, userId: alice, grantedAt: at(1) } },
    { type: 'TenantAuditorGranted', data: { tenantId, userId: bob, grantedAt: at(2) } },
    { type: 'TenantAuditorRevoked', data: { tenantId, userId: alice, revokedAt: at(3) } },
  ];
  return { tenantId, slug, alice, bob, poolId, reservationId, v1Created, poolEvents, tenantEvents };
};
type History = ReturnType<typeof history>;

const appendHistory = async (h: History): Promise<RecordedEvent[]> => {
  await specStore().append(`tenant-${h.slug}`, h.tenantEvents.map((e) => toNew(e, h.tenantId)), { expectedRevision: 'no_stream' });
  await specStore().append(`pool-${h.poolId}`, [h.v1Created], { expectedRevision: 'no_stream' });
  for (const e of h.poolEvents) await specStore().append(`pool-${h.poolId}`, [toNew(e, h.tenantId)], { expectedRevision: 'any' });
  const all = [...(await specStore().readStream(`tenant-${h.slug}`)), ...(await specStore().readStream(`pool-${h.poolId}`))];
  return all.sort((a, b) => comparePositions(a.position, b.position));
};

const rowsOf = async (p: Projection, h: History) => ({
  events: await specKnex()(p.tables[0]!).where({ stream_id: `pool-${h.poolId}` }).orderBy('revision'),
  auditors: await specKnex()(p.tables[1]!).where({ tenant_id: h.tenantId }).orderBy('user_id'),
});

Audit('one event at a time, one batch, a replay and a rebuild from position 0 write the same rows', async () => {
  const h = history();
  const events = await appendHistory(h);
  const single = await onCopies();
  const batched = await onCopies();
  for (const e of events) await applyBatch(specKnex(), single, [e]);
  await applyBatch(specKnex(), batched, events);
  const expected = await rowsOf(batched, h);
  assert.is(expected.events.length, 4);
  assert.equal(await rowsOf(single, h), expected, 'one at a time = one batch');

  await applyBatch(specKnex(), { ...batched, name: uniq('spec_aud_replay') }, events);
  assert.equal(await rowsOf(batched, h), expected, 'replayed');

  const runner = new ProjectorRunner({ store: specStore(), knex: specKnex(), projections: [batched], logger: silent });
  await runner.rebuild(batched.name);
  assert.equal(await rowsOf(batched, h), expected, 'rebuilt from position 0');
});

Audit('each pool event is kept as stored (not upcast), with its hash links and the columns to query it by', async () => {
  const h = history();
  const p = await onCopies();
  await applyBatch(specKnex(), p, await appendHistory(h));
  const stored = await specStore().readStream(`pool-${h.poolId}`);
  const { events, auditors } = await rowsOf(p, h);
  assert.equal(
    events.map((r) => [r.revision, r.event_id, r.type, r.schema_version, r.data, r.metadata, r.hash, r.prev_hash, `${r.commit_position}-${r.prepare_position}`]),
    stored.map((e) => [String(e.revision), e.id, e.type, e.schemaVersion, e.data, e.metadata, e.hash, e.prevHash, formatPosition(e.position)]),
  );
  const [created, , placed, paid] = events;
  assert.is(created.schema_version, 1);
  assert.is(created.data.config.legacyKey, 'free-form, before config was closed', 'the stored data, as its hash covers it');
  assert.is(created.current_version, 4, 'PoolCreated v4 (livemode) is the current version');
  assert.not.ok('legacyKey' in created.current_data.config, 'the upcast data, as the folds take it');
  assert.equal([placed.reservation_id, paid.reservation_id, created.reservation_id], [h.reservationId, h.reservationId, null]);
  assert.ok(events.every((r) => r.pool_id === h.poolId && r.tenant_id === h.tenantId));
  assert.ok(events.slice(1).every((r) => r.actor_kind === 'system' && r.actor_id === 'spec'));
  assert.equal([created.actor_kind, created.actor_id, created.occurred_at.toISOString()], ['user', h.v1Created.metadata.actor.id, at(0)]);

  const byUser = new Map(auditors.map((a) => [a.user_id, a]));
  assert.is(byUser.get(h.bob)!.active, true);
  assert.is(byUser.get(h.alice)!.active, false, 'revoked');
  assert.equal(byUser.get(h.alice)!.revoked_at.toISOString(), at(3));
  assert.is(String(byUser.get(h.alice)!.revision), '3');
});

Audit('it selects by stream, not by type: any type on a pool stream (the escrow\'s, added later), and the auditor events', async () => {
  assert.ok(auditProjection.handles('PoolEscrowReleased', 'pool-x'), 'any type on a pool stream');
  assert.not.ok(auditProjection.handles('PoolCreated', 'account-x'), 'nothing of other streams but the auditor events');
  assert.ok(auditProjection.handles('TenantAuditorGranted', 'tenant-x'));
});

Audit.run();
