import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { computeInvoice } from '@cagnotte/domain';
import type { DomainEvent, EventData } from '@cagnotte/event-schemas';
import { PUBLIC_EVENTS_CHANNEL, PUBLIC_EVENTS_TABLE, PUBLIC_EVENT_OWNERS_TABLE, toPublicEvent, type PublicEventRow } from '@cagnotte/read-models';
import { ProjectorRunner, applyBatch, type Projection, type TableMap } from '../runtime';
import { testPgPool } from '@cagnotte/infra/src/testing/resources';
import { appendTo, newPool, silent, specKnex, specStore, toNew, uniq, type PoolFixture } from '../spec-support';
import { publicEventsProjection } from './public-events';

/**
 * The public-events projection, on copies of its two tables (a rebuild here never swaps the live ones other specs
 * read), with events appended to the real event store.
 */
const Feed = suite('public-events projection');

const onCopy = async (): Promise<Projection> => {
  const copies: Record<string, string> = { [PUBLIC_EVENTS_TABLE]: uniq('spec_rm_public_events'), [PUBLIC_EVENT_OWNERS_TABLE]: uniq('spec_rm_pe_owners') };
  for (const [live, copy] of Object.entries(copies)) await specKnex().raw('CREATE TABLE ?? (LIKE ?? INCLUDING ALL)', [copy, live]);
  const to = (table: TableMap): TableMap => (t) => table(copies[t] ?? t);
  return {
    name: copies[PUBLIC_EVENTS_TABLE]!,
    tables: Object.values(copies),
    handles: publicEventsProjection.handles,
    apply: (trx, e, table) => publicEventsProjection.apply(trx, e, to(table)),
    applyMany: (trx, es, table) => publicEventsProjection.applyMany!(trx, es, to(table)),
  };
};

const at = (minute: number) => new Date(Date.UTC(2025, 2, 1, 10, minute)).toISOString();
const hex = (c: string) => c.repeat(64);

/** A buyer places and pays, another places and lets it expire; the pool closes and a refund is settled. */
const history = (p: PoolFixture) => {
  const base = { poolId: p.poolId };
  const [b1, b2, r1, r2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const placed = (reservationId: string, buyerId: string): DomainEvent => ({
    type: 'ReservationPlaced',
    data: { ...base, reservationId, buyerId, buyerName: 'Ann', lines: [{ unitId: 'u1', quantity: 2, unitPrice: '12.50' }], pledge: null, amount: '25.00', depositFee: '0.00', relaisId: null, expiresAt: at(30), placedAt: at(3) },
  });
  const events: DomainEvent[] = [
    p.created(),
    p.renamed('Another title'),
    p.published(),
    placed(r1, b1),
    placed(r2, b2),
    { type: 'ReservationPaid', data: { ...base, reservationId: r1, buyerId: b1, txHash: hex('a'), ledger: 5, balanceId: `00000000${hex('a')}`, amount: '25.00', via: 'txHash', paidAt: at(4) } },
    { type: 'ReservationExpired', data: { ...base, reservationId: r2, buyerId: b2, expiresAt: at(30), expiredAt: at(31) } },
    {
      type: 'ReservationSettled',
      data: { ...base, reservationId: r1, buyerId: b1, settlementId: randomUUID(), kind: 'DEPOSIT', balanceId: `00000000${hex('a')}`, path: 'RECOVERY', released: '0.00', refunded: '25.00', txHash: hex('9'), settledAt: at(50) },
    },
  ];
  return { events, reservations: [r1, r2] };
};

const rowsOf = async (proj: Projection, tenantId: string) =>
  (await specKnex()(proj.tables[0]!)
    .where({ tenant_id: tenantId })
    .orderBy(['commit_position', 'prepare_position', 'idx'])
    .select(specKnex().raw('commit_position::text AS commit_text'), 'prepare_position', 'idx', 'id', 'tenant_id', 'owner_id', 'type', 'subject', 'sequence', 'api_version', 'created_at', 'data')) as PublicEventRow[];

Feed('one event at a time, one batch, a replay and a rebuild from position 0 write the same rows, with the same ids', async () => {
  const p = newPool();
  const h = history(p);
  await appendTo(p, ...h.events);
  const events = await specStore().readStream(p.streamId);
  const single = await onCopy();
  const batched = await onCopy();
  for (const e of events) await applyBatch(specKnex(), single, [e]);
  await applyBatch(specKnex(), batched, events);
  const expected = await rowsOf(batched, p.tenantId);
  assert.equal(
    expected.map((r) => r.type),
    [
      'pool.created',
      'group_buy.created',
      'pool.updated',
      'pool.published',
      'group_buy.published',
      'reservation.placed',
      'group_buy.order_placed',
      'reservation.placed',
      'group_buy.order_placed',
      'reservation.paid',
      'group_buy.order_paid',
      'reservation.expired',
      'reservation.settled',
      'refund.settled',
    ],
  );
  assert.equal(await rowsOf(single, p.tenantId), expected, 'one at a time = one batch');

  await applyBatch(specKnex(), { ...batched, name: uniq('spec_pe_replay') }, events);
  assert.equal(await rowsOf(batched, p.tenantId), expected, 'replayed: nothing added, nothing changed');

  const runner = new ProjectorRunner({ store: specStore(), knex: specKnex(), projections: [batched], logger: silent });
  await runner.rebuild(batched.name);
  assert.equal(await rowsOf(batched, p.tenantId), expected, 'rebuilt from position 0');

  // The id rule and the row's place: the internal event's id and position, plus the index.
  const settled = events.at(-1)!;
  const [reservationSettled, refund] = expected.slice(-2);
  const hexId = settled.id.replace(/-/g, '');
  assert.equal([reservationSettled!.id, refund!.id], [`evt_${hexId}`, `evt_${hexId}_1`]);
  assert.equal([refund!.commit_text, String(refund!.prepare_position), refund!.idx], [settled.position.commit.toString(), settled.position.prepare.toString(), 1]);
  const envelope = toPublicEvent(refund!);
  assert.equal([envelope.subject, envelope.sequence, envelope.apiVersion, envelope.tenant], [h.reservations[0], Number(settled.revision), '2026-11-01', p.tenantId]);
  assert.equal(envelope.createdAt, new Date(settled.metadata.occurredAt as string).toISOString());
});

Feed('owners: a later batch finds the pool’s organiser in rm_public_event_owners; a pool’s invoice on its own stream belongs to it', async () => {
  const p = newPool();
  const proj = await onCopy();
  const created = p.created();
  const organiserId = (created.data as { organiserId: string }).organiserId;
  await appendTo(p, created);
  await applyBatch(specKnex(), proj, await specStore().readStream(p.streamId));
  await appendTo(p, p.published());
  const [, publishedEvent] = await specStore().readStream(p.streamId);
  await applyBatch(specKnex(), proj, [publishedEvent!]);

  const document = computeInvoice({
    typeCode: '380',
    number: 'F-2026-000001',
    issueDate: '2026-03-03',
    currency: 'EUR',
    seller: { name: 'Fromagerie', id: organiserId, address: { country: 'FR' } },
    buyer: { name: 'Ann', id: randomUUID(), address: { country: 'FR' }, email: 'ann@example.com' },
    lines: [{ id: '1', name: 'Comté', quantity: 2, netUnitPrice: '15.4167', vatCategory: 'S', vatRate: '20' }],
    prepaid: '37.00',
  });
  const invoice: EventData<'InvoiceIssued'> = {
    invoiceId: randomUUID(),
    tenantId: p.tenantId,
    issuer: { kind: 'account', id: organiserId },
    recipient: { kind: 'account', id: randomUUID() },
    kind: 'GOODS',
    poolId: p.poolId,
    sourceKey: `goods:${randomUUID()}`,
    sequence: 1,
    document,
    issuedAt: at(40),
  };
  const stream = `invoices-${p.tenantId}-acct-${organiserId}-F`;
  await specStore().append(stream, [toNew({ type: 'InvoiceIssued', data: invoice }, p.tenantId)], { expectedRevision: 'no_stream' });
  await applyBatch(specKnex(), proj, await specStore().readStream(stream));

  const rows = await rowsOf(proj, p.tenantId);
  assert.equal(rows.map((r) => [r.type, r.owner_id, r.subject]), [
    ['pool.created', organiserId, p.poolId],
    ['group_buy.created', organiserId, p.poolId],
    ['pool.published', organiserId, p.poolId],
    ['group_buy.published', organiserId, p.poolId],
    ['invoice.issued', organiserId, invoice.invoiceId],
  ]);
  assert.not.ok(JSON.stringify(rows.at(-1)!.data).includes('ann@example.com'));
  const owners = await specKnex()(proj.tables[1]!).where({ resource_id: p.poolId });
  assert.equal(owners, [{ resource_id: p.poolId, tenant_id: p.tenantId, owner_id: organiserId, livemode: null, pool_type: 'GROUPS' }]);
  assert.not.ok(rows.some((r) => 'livemode' in (r.data as object)), 'a pool of /api: the deployment’s mode');
});

Feed('modes: a pool created in a mode (a /v1 key’s) is remembered with its owner; a later batch’s events about it carry that livemode', async () => {
  const p = newPool();
  const proj = await onCopy();
  const created = p.created() as Extract<DomainEvent, { type: 'PoolCreated' }>;
  await appendTo(p, { ...created, data: { ...created.data, livemode: true } });
  await applyBatch(specKnex(), proj, await specStore().readStream(p.streamId));
  await appendTo(p, p.published());
  const [, publishedEvent] = await specStore().readStream(p.streamId);
  await applyBatch(specKnex(), proj, [publishedEvent!]);
  const rows = await rowsOf(proj, p.tenantId);
  assert.equal(rows.map((r) => [r.type, (r.data as { livemode?: boolean }).livemode]), [
    ['pool.created', true],
    ['group_buy.created', true],
    ['pool.published', true],
    ['group_buy.published', true],
  ]);
  assert.equal((await specKnex()(proj.tables[1]!).where({ resource_id: p.poolId }).first()).livemode, true);
});

Feed('the live projection notifies public_events with the tenants it wrote for, at commit', async () => {
  const listener = await testPgPool().connect();
  try {
    const heard: string[] = [];
    listener.on('notification', (n) => n.channel === PUBLIC_EVENTS_CHANNEL && heard.push(n.payload ?? ''));
    await listener.query(`LISTEN ${PUBLIC_EVENTS_CHANNEL}`);
    const p = newPool();
    await appendTo(p, p.created());
    await applyBatch(specKnex(), { ...publicEventsProjection, name: uniq('spec_pe_live') }, await specStore().readStream(p.streamId));
    const deadline = Date.now() + 5_000;
    while (!heard.some((h) => h.split(',').includes(p.tenantId)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(heard.some((h) => h.split(',').includes(p.tenantId)), `heard ${JSON.stringify(heard)}`);
  } finally {
    await listener.query(`UNLISTEN ${PUBLIC_EVENTS_CHANNEL}`);
    listener.removeAllListeners('notification');
    listener.release();
  }
});

Feed('events the catalogue keeps internal write nothing', async () => {
  const proj = await onCopy();
  const tenantId = randomUUID();
  const userId = randomUUID();
  const registered: DomainEvent = {
    type: 'AccountRegistered',
    data: { userId, tenantId, email: 'x@example.com', phone: null, displayName: 'X', role: 'user', accountType: 'CONSUMER', country: 'FR', currency: 'EUR', timezone: 'Europe/Paris', signupSource: 'web', registeredAt: at(1) },
  };
  await specStore().append(`account-${userId}`, [toNew(registered, tenantId)], { expectedRevision: 'no_stream' });
  await applyBatch(specKnex(), proj, await specStore().readStream(`account-${userId}`));
  assert.equal(await rowsOf(proj, tenantId), []);
});

Feed.run();
