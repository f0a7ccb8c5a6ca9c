import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import knexFactory, { type Knex } from 'knex';
import type { HostProfile } from '@cagnotte/event-schemas';
import { CommunityHostsAdapter } from './community';
import { RELAIS_HOSTS_TABLE, relaisHostRowOf } from './hosts-tables';
import type { RelaisHostDoc } from './hosts-fold';
import type { RelaisHostStatus } from './hosts-view';

/**
 * The community network over rm_relais_hosts on the real database, rows written as the projection writes them
 * (relaisHostRowOf). Each test has its own tenant, so hosts of other tests never show.
 */
const test = suite('community hosts adapter: approved hosts of the tenant near a place');

let knex: Knex;
test.before(() => {
  knex = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', pool: { min: 0, max: 4 } });
});
test.after(async () => {
  await knex.destroy();
});

const signal = new AbortController().signal;
const NOW = new Date('2026-03-01T09:00:00.000Z');
const adapter = () => new CommunityHostsAdapter(knex, () => NOW);

const profile = (name: string, postalCode: string, lat: number, lng: number, maxWeightG = 5000): HostProfile => ({
  name,
  address: { line1: '1 rue X', postalCode, city: 'Paris', country: 'FR' },
  geo: { lat, lng },
  openingHours: { '1': [{ open: '09:00', close: '19:00' }] },
  closures: [{ from: '2026-08-01', to: '2026-08-15' }],
  capacity: { parcelsPerDay: 5, maxWeightG },
  photoUrl: null,
});

const host = async (tenantId: string, status: RelaisHostStatus, p: HostProfile): Promise<string> => {
  const doc: RelaisHostDoc = {
    hostId: randomUUID(),
    tenantId,
    userId: randomUUID(),
    status,
    profile: p,
    appliedAt: NOW.toISOString(),
    approvedAt: status === 'pending' || status === 'rejected' ? null : NOW.toISOString(),
    approvedBy: null,
    rejectionReason: null,
    statusReason: null,
    updatedAt: NOW.toISOString(),
    revision: 1n,
  };
  await knex(RELAIS_HOSTS_TABLE).insert(relaisHostRowOf(doc));
  return doc.hostId;
};

// Paris 11e (75011), Paris 12e (75012, about 2 km away), Lyon (69001, about 390 km away).
const BASTILLE = { lat: 48.8532, lng: 2.3691 };

test('given hosts active, pending, paused, rejected and far away, when searched around a position, then only the active ones within the radius come, nearest first, as community points', async () => {
  const tenant = randomUUID();
  const near = await host(tenant, 'active', profile('Chez Louise', '75011', 48.8575, 2.3795));
  const farther = await host(tenant, 'active', profile('Chez Marc', '75012', 48.8412, 2.3876));
  await host(tenant, 'pending', profile('Pending', '75011', 48.8533, 2.3692));
  await host(tenant, 'temporarily_closed', profile('Paused', '75011', 48.8533, 2.3692));
  await host(tenant, 'rejected', profile('Rejected', '75011', 48.8533, 2.3692));
  await host(tenant, 'active', profile('Lyon', '69001', 45.767, 4.834));
  await host(randomUUID(), 'active', profile('Other tenant', '75011', 48.8533, 2.3692));

  const points = await adapter().search({ country: 'FR', ...BASTILLE, radiusKm: 5, limit: 20, tenantId: tenant }, signal);
  assert.equal(points.map((p) => p.id), [`community:${near}`, `community:${farther}`]);
  const [first] = points;
  assert.equal([first!.network, first!.kind, first!.status, first!.maxWeightG, first!.fetchedAt], ['community', 'community_host', 'active', 5000, NOW.toISOString()]);
  assert.ok(first!.distanceM! > 500 && first!.distanceM! < 1200, `about 0.8 km: ${first!.distanceM}`);
  assert.equal(first!.closures, [{ from: '2026-08-01', to: '2026-08-15' }], 'closures as declared: the directory filters openOn');
  assert.is((await adapter().search({ country: 'FR', ...BASTILLE, radiusKm: 1, limit: 20, tenantId: tenant }, signal)).length, 1);
  assert.is((await adapter().search({ country: 'FR', ...BASTILLE, radiusKm: 5, limit: 1, tenantId: tenant }, signal)).length, 1);
  assert.equal(await adapter().search({ country: 'FR', ...BASTILLE, radiusKm: 5, limit: 20, tenantId: null }, signal), [], 'no tenant: no community');
});

test('given a weight, when searched, then hosts that take lighter parcels only are left out', async () => {
  const tenant = randomUUID();
  const light = await host(tenant, 'active', profile('Light', '75011', 48.8575, 2.3795, 1000));
  const strong = await host(tenant, 'active', profile('Strong', '75011', 48.858, 2.38, 20000));
  const ids = async (weightG?: number) => (await adapter().search({ country: 'FR', ...BASTILLE, radiusKm: 5, limit: 20, tenantId: tenant, ...(weightG ? { weightG } : {}) }, signal)).map((p) => p.id).sort();
  assert.equal(await ids(), [`community:${light}`, `community:${strong}`].sort());
  assert.equal(await ids(4000), [`community:${strong}`]);
});

test('given a postal code, when searched, then the hosts with it and their neighbours within the radius come; a code no host has is centred on its neighbours', async () => {
  const tenant = randomUUID();
  const a = await host(tenant, 'active', profile('A', '75011', 48.8575, 2.3795));
  const b = await host(tenant, 'active', profile('B', '75012', 48.8412, 2.3876));
  await host(tenant, 'active', profile('Lyon', '69001', 45.767, 4.834));
  const byCode = await adapter().search({ country: 'FR', postalCode: '75011', radiusKm: 10, limit: 20, tenantId: tenant }, signal);
  assert.equal(byCode.map((p) => p.id), [`community:${a}`, `community:${b}`]);
  const neighbours = await adapter().search({ country: 'FR', postalCode: '75010', radiusKm: 10, limit: 20, tenantId: tenant }, signal);
  assert.equal(neighbours.map((p) => p.id).sort(), [`community:${a}`, `community:${b}`].sort());
  assert.equal(await adapter().search({ country: 'FR', postalCode: '13001', radiusKm: 10, limit: 20, tenantId: tenant }, signal), []);
});

test('given hosts in every status, when got by id, then approved ones answer with their status, rejected and retired as retired, pending and another tenant’s as unknown', async () => {
  const tenant = randomUUID();
  const get = (id: string, t: string | null = tenant) => adapter().get(id, t, signal);
  const active = await host(tenant, 'active', profile('A', '75011', 48.8575, 2.3795));
  const paused = await host(tenant, 'temporarily_closed', profile('B', '75011', 48.8575, 2.3795));
  const retired = await host(tenant, 'retired', profile('C', '75011', 48.8575, 2.3795));
  const rejected = await host(tenant, 'rejected', profile('D', '75011', 48.8575, 2.3795));
  const pending = await host(tenant, 'pending', profile('E', '75011', 48.8575, 2.3795));
  assert.is((await get(active))?.status, 'active');
  assert.is((await get(paused))?.status, 'temporarily_closed');
  assert.is((await get(retired))?.status, 'retired');
  assert.is((await get(rejected))?.status, 'retired');
  assert.is(await get(pending), null);
  assert.is(await get(active, randomUUID()), null, 'another tenant’s host');
  assert.is((await get(active, null))?.id, `community:${active}`, 'without a tenant: by id');
  assert.is(await get('not-a-uuid'), null);
  assert.is((await get(active))?.distanceM, undefined, 'no distance outside a search');
});

test.run();
