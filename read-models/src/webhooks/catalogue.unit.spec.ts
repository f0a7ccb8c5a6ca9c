import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { allEventDefinitions, type DomainEvent, type EventData } from '@cagnotte/event-schemas';
import * as flow from '../escrow/fixtures.testing';
import {
  INTERNAL_ONLY,
  MAPPED_EVENT_TYPES,
  PUBLIC_EVENT_CATALOGUE,
  PUBLIC_EVENT_TYPES,
  ownerRecordOf,
  publicEventCatalogueDocument,
  publicEventsOf,
  type CatalogueEvent,
  type PoolOwner,
  type PublicEventDraft,
} from './catalogue';
import { incompatibilities, type PublishedCatalogue } from './schema-compat';
import { publicEventId } from './feed-table';

const { POOL, TENANT, ORGANISER, B1, B2, R1, R2, R3, S1, S2, DISPUTE, G, hex, at } = flow;
const p = { poolId: POOL };

const definitionOf = (type: string) => allEventDefinitions.find((d) => d.type === type)!;

/** An event as the projection hands it over, its data validated by its current schema (every fixture is a valid event). */
const recorded = (e: DomainEvent, revision: number, streamId = `pool-${POOL}`, tenantId: string | null = TENANT): CatalogueEvent =>
  ({
    type: e.type,
    data: definitionOf(e.type).data.parse(e.data),
    schemaVersion: definitionOf(e.type).version,
    metadata: { tenantId, actor: { kind: 'user', id: ORGANISER }, correlationId: randomUUID(), causationId: null, occurredAt: at(1) },
    id: randomUUID(),
    streamId,
    revision: BigInt(revision),
  }) as CatalogueEvent;

/** Runs events through the catalogue the way the projection does: remembering each created pool's owner. */
const projectAll = (events: CatalogueEvent[], owners = new Map<string, PoolOwner>()) =>
  events.flatMap((e) => {
    const drafts = publicEventsOf(e, owners);
    const owner = ownerRecordOf(e);
    if (owner) {
      const { resourceId, ...known } = owner;
      owners.set(resourceId, known);
    }
    return drafts.map((d, idx) => ({ ...d, id: publicEventId(e.id, idx) }));
  });
/** The same, without the group_buy.* twins (their own test below): what the pool.* and reservation.* tests read. */
const project = (events: CatalogueEvent[], owners = new Map<string, PoolOwner>()) => projectAll(events, owners).filter((d) => !d.type.startsWith('group_buy.'));

const signed: DomainEvent = {
  type: 'ReservationSigned',
  data: { ...p, reservationId: R1, buyerId: B1, terms: { version: 'v1', hash: hex('7') }, source: G('Q'), escrowAccount: G('E'), memoHash: hex('9'), reclaimAfter: at(40), ip: '203.0.113.9', signedAt: at(3) },
};
const stray: DomainEvent[] = [
  { type: 'EscrowStrayPaymentRecorded', data: { ...p, escrowAccount: G('E'), operationId: '123456', txHash: hex('d'), from: G('X'), amount: '3.00', receivedAt: at(6), recordedAt: at(6) } },
  { type: 'EscrowStrayPaymentReturned', data: { ...p, operationId: '123456', to: G('X'), amount: '3.00', settlementId: S1, txHash: hex('a'), returnedAt: at(16) } },
];
const party = (name: string, id: string, email?: string) => ({ name, id, address: { country: 'FR' }, ...(email ? { email } : {}) });
const invoice = (poolId: string | undefined): DomainEvent => ({
  type: 'InvoiceIssued',
  data: {
    invoiceId: randomUUID(),
    tenantId: TENANT,
    issuer: { kind: 'account', id: ORGANISER },
    recipient: { kind: 'account', id: B1 },
    kind: poolId ? 'GOODS' : 'ACTIVATION_FEE',
    ...(poolId ? { poolId, reservationId: R1 } : {}),
    sourceKey: `goods:${R1}`,
    sequence: 1,
    document: {
      typeCode: '380',
      number: 'F-2026-000001',
      issueDate: '2026-03-10',
      currency: 'EUR',
      seller: party('Miel SARL', ORGANISER),
      buyer: party('Ann Buyer', B1, 'ann@example.com'),
      lines: [{ id: '1', name: 'Pot', quantity: 2, netUnitPrice: '10.00', vatCategory: 'S', vatRate: '5.5', netAmount: '20.00' }],
      vatBreakdown: [{ category: 'S', rate: '5.5', taxableAmount: '20.00', taxAmount: '1.10' }],
      totals: { lineTotal: '20.00', taxBasisTotal: '20.00', taxTotal: '1.10', grandTotal: '21.10', prepaid: '21.10', rounding: '0.00', duePayable: '0.00' },
    },
    issuedAt: at(10),
  } as EventData<'InvoiceIssued'>,
});

/** One pool's whole life: deposits, a signature, strays, closing, receipt, a dispute, two settlements, an invoice. */
const wholeFlow = (): CatalogueEvent[] => {
  const pool = [...flow.depositsPhase.slice(0, 6), signed, ...flow.depositsPhase.slice(6), ...stray, ...flow.firstSettlement, ...flow.finalSettlement].map((e, i) => recorded(e, i));
  return [...pool, recorded(invoice(POOL), 0, `invoices-${TENANT}-acct-${ORGANISER}-F`)];
};

const types = (drafts: Array<{ type: string }>) => drafts.map((d) => d.type);

const test = suite('public event catalogue');

test('given a pool created and published, when mapped, then pool.created and pool.published name the organiser as owner and the pool as subject', () => {
  const out = project([recorded(flow.created(), 0), recorded(flow.published, 1, `pool-${POOL}`, null)]);
  assert.equal(types(out), ['pool.created', 'pool.published']);
  for (const d of out) assert.equal([d.tenantId, d.ownerId, d.subject], [TENANT, ORGANISER, POOL], 'a system event (no tenant in its metadata) still finds the pool’s tenant');
  assert.equal(out[1]!.data, { poolId: POOL, status: 'OPEN', publishedAt: at(2) });
  assert.equal((out[0]!.data as { status: string }).status, 'DRAFT');
});

test('given a pool’s life, when mapped, then each pool.created, published, closed, cancelled, settled and each order placed and paid has its group_buy.* twin, in /v1 ids, after the pool.* event', () => {
  const hexOf = (u: string) => u.replace(/-/g, '');
  const out = projectAll(wholeFlow().filter((e) => e.streamId === `pool-${POOL}`));
  const gb = out.filter((d) => d.type.startsWith('group_buy.'));
  assert.equal([...new Set(types(gb))], ['group_buy.created', 'group_buy.published', 'group_buy.order_placed', 'group_buy.order_paid', 'group_buy.closed', 'group_buy.settled']);
  for (const d of gb) {
    assert.is((d.data as { groupBuy: string }).groupBuy, `gb_${hexOf(POOL)}`, d.type);
    assert.equal([d.tenantId, d.ownerId], [TENANT, ORGANISER]);
    const twin = out[out.indexOf(d) - 1]!;
    assert.is(`${twin.id}_1`, d.id, `${d.type} is index 1 of its internal event, after the pool.* one (whose id is unchanged)`);
  }
  const placed = gb.find((d) => d.type === 'group_buy.order_placed')!.data as { order: string; buyer: string; items: unknown[] };
  assert.match(placed.order, /^ord_[0-9a-f]{32}$/);
  assert.match(placed.buyer, /^acct_[0-9a-f]{32}$/);
  assert.equal(Object.keys(placed.items[0] as object).sort(), ['itemId', 'quantity', 'unitAmount']);
  const groups = new Map([[POOL, { tenantId: TENANT, ownerId: ORGANISER, poolType: 'GROUPS' as const }]]);
  const cancelled = projectAll([recorded({ type: 'PoolCancelled', data: { ...p, reason: null, cancelledAt: at(3) } }, 2)], groups);
  // A FUNDING pool is no group-buy, and a pool whose type the projection does not know has no twins either.
  const funding = projectAll([recorded(flow.created('FUNDING'), 0), recorded(flow.published, 1)]);
  assert.equal(types(funding), ['pool.created', 'pool.published']);
  assert.equal(types(projectAll([recorded({ type: 'PoolCancelled', data: { ...p, reason: null, cancelledAt: at(3) } }, 2)], new Map([[POOL, { tenantId: TENANT, ownerId: ORGANISER }]]))), ['pool.cancelled']);
  assert.equal(types(cancelled), ['pool.cancelled', 'group_buy.cancelled']);
  assert.equal(cancelled[1]!.data, { groupBuy: `gb_${hexOf(POOL)}`, poolId: POOL, status: 'cancelled', reason: null, cancelledAt: at(3) });
});

test('given a pool created with a mode (a /v1 key’s), when its events are mapped, then every public event about it carries that livemode; a pool without one carries none (the deployment’s)', () => {
  const live = { ...flow.created(), data: { ...flow.created().data, livemode: true } } as DomainEvent;
  const owners = new Map<string, PoolOwner>();
  const pool = [live, ...flow.depositsPhase.slice(1, 7)].map((e, i) => recorded(e, i));
  const out = projectAll(pool, owners);
  assert.ok(out.length >= 6);
  for (const d of out) assert.is((d.data as { livemode?: boolean }).livemode, true, d.type);
  assert.equal(owners.get(POOL), { tenantId: TENANT, ownerId: ORGANISER, poolType: 'GROUPS', livemode: true }, 'the projection remembers it with the owner');
  const later = projectAll([recorded(flow.published, 1)], new Map([[POOL, { tenantId: TENANT, ownerId: ORGANISER, poolType: 'GROUPS' as const, livemode: false }]]));
  for (const d of later) assert.is((d.data as { livemode?: boolean }).livemode, false, 'a later batch reads it from the owners');
  for (const d of projectAll([recorded(flow.created(), 0), recorded(flow.published, 1)])) assert.not.ok('livemode' in (d.data as object), d.type);
});

test('given a pool the projection does not know, when one of its events is mapped, then the event’s tenant is used and it has no owner', () => {
  const [d] = project([recorded(flow.published, 1)]);
  assert.equal([d!.tenantId, d!.ownerId], [TENANT, null]);
  assert.equal(project([recorded(flow.published, 1, `pool-${POOL}`, null)]), [], 'no tenant at all: no reader, no event');
});

test('given draft edits, when mapped, then pool.updated names the fields changed, never their values', () => {
  const [d] = project([recorded({ type: 'PoolDraftUpdated', data: { ...p, changes: { title: 'x', config: { sellerPhone: '+33600000000' } }, updatedAt: at(2) } }, 1)]);
  assert.equal(d!.data, { poolId: POOL, fields: ['config', 'title'], updatedAt: at(2) });
});

test('given closing, delivery, cancellation and archiving, when mapped, then each has its pool type and status', () => {
  const out = project([
    recorded(flow.closed('FAILED'), 1),
    recorded({ type: 'PoolCancelled', data: { ...p, reason: 'stock', cancelledAt: at(3) } }, 2),
    recorded({ type: 'PoolDelivered', data: { ...p, note: 'door code 1234', inspectionEndsAt: at(18), deliveredAt: at(11) } }, 3),
    recorded({ type: 'PoolArchived', data: { ...p, archivedAt: at(20) } }, 4),
  ]);
  assert.equal(types(out), ['pool.closed', 'pool.cancelled', 'pool.delivered', 'pool.archived']);
  assert.equal([(out[0]!.data as { status: string }).status, (out[0]!.data as { releaseAfter: string }).releaseAfter], ['FAILED', 'RECEIPT']);
  assert.not.ok('note' in out[2]!.data, 'the organiser’s note to buyers is not part of it');
});

test('given a reservation placed and signed, when mapped, then the subject is the reservation and the buyer is an id only', () => {
  const out = project([recorded(flow.created(), 0), ...flow.depositsPhase.slice(3, 4).map((e, i) => recorded(e, i + 1)), recorded(signed, 2)]);
  const [placed, sig] = out.slice(1);
  assert.equal([placed!.type, placed!.subject, placed!.ownerId], ['reservation.placed', R1, ORGANISER]);
  assert.not.ok('buyerName' in placed!.data);
  assert.equal((placed!.data as { depositFee: string }).depositFee, '0.00', 'a placement without a deposit fee (v1) has none');
  assert.equal(Object.keys(sig!.data).sort(), ['buyerId', 'escrowAccount', 'poolId', 'reclaimAfter', 'reservationId', 'signedAt', 'terms']);
});

test('given payments, expiry, cancellation, late payments and acceptances, when mapped, then each is a reservation.* event', () => {
  const out = project([
    ...flow.depositsPhase.slice(6).map((e, i) => recorded(e, i + 6)),
    recorded({ type: 'ReservationCancelled', data: { ...p, reservationId: R2, buyerId: B2, cancelledAt: at(3) } }, 10),
    recorded({ type: 'ReservationReceiptConfirmed', data: { ...p, reservationId: R1, buyerId: B1, confirmedAt: at(12) } }, 11),
    recorded({ type: 'ReservationAutoAccepted', data: { ...p, reservationId: R2, buyerId: B2, inspectionEndedAt: at(18), acceptedAt: at(18) } }, 12),
  ]);
  assert.equal(types(out), ['reservation.paid', 'reservation.paid', 'reservation.expired', 'reservation.late_payment_received', 'reservation.cancelled', 'reservation.accepted', 'reservation.accepted']);
  assert.equal(out.slice(5).map((d) => (d.data as { acceptance: { by: string } }).acceptance.by), ['BUYER', 'AUTO']);
  assert.equal(out.map((d) => d.subject), [R1, R2, R3, R3, R2, R1, R2]);
});

test('given a dispute, when mapped, then dispute.* events have the dispute as subject and leave the buyer’s words out', () => {
  const out = project([recorded(flow.disputeOpened, 1), recorded(flow.disputeContested, 2), recorded(flow.disputeRefunded, 3)]);
  assert.equal(types(out), ['dispute.opened', 'dispute.contested', 'dispute.resolved']);
  assert.equal(out.map((d) => d.subject), [DISPUTE, DISPUTE, DISPUTE]);
  for (const d of out) for (const k of ['details', 'evidence', 'statement']) assert.not.ok(k in d.data, k);
  assert.equal([(out[2]!.data as { status: string }).status, (out[2]!.data as { refund: string }).refund], ['REFUNDED', '10.00']);
});

test('given a settlement, when mapped, then prepared, release, payouts, reservation settlements and refunds come out, one payout per recipient, a refund only for what went back', () => {
  const out = project(flow.firstSettlement.slice(5).map((e, i) => recorded(e, i + 20)));
  assert.equal(types(out), ['settlement.prepared', 'release.settled', 'payout.settled', 'payout.settled', 'payout.settled', 'reservation.settled', 'reservation.settled', 'refund.settled']);
  assert.equal(out[0]!.data, {
    settlementId: S1, poolId: POOL, kind: 'RELEASE', final: false, items: 2, amount: '25.00', rounds: 1,
    releaseUntil: at(20), recoveryFrom: at(21), recoveryUntil: at(39), supersedes: null, preparedAt: at(15),
  });
  assert.equal(out.slice(2, 5).map((d) => [(d.data as { role: string }).role, (d.data as { destination: string | null }).destination]), [['SELLER', G('S')], ['PLATFORM', G('S')], ['BUYER', null]]);
  const refund = out[7]!;
  assert.equal([refund.subject, refund.data], [R3, { poolId: POOL, refundOf: 'LATE_DEPOSIT', reservationId: R3, buyerId: flow.B3, operationId: null, settlementId: S1, amount: '5.00', txHash: hex('b'), settledAt: at(16) }]);
  const final = project(flow.finalSettlement.map((e, i) => recorded(e, i + 40)));
  assert.equal(types(final).slice(-3), ['reservation.settled', 'refund.settled', 'pool.settled']);
  assert.equal((final.at(-1)!.data as { settlementId: string }).settlementId, S2);
});

test('given two public events of one internal event, when their ids are made, then the second carries its index', () => {
  const e = recorded(flow.finalSettlement[6]!, 46);
  const out = project([e]);
  assert.equal(out.map((d) => d.id), [`evt_${e.id.replace(/-/g, '')}`, `evt_${e.id.replace(/-/g, '')}_1`]);
});

test('given money paid straight into the escrow and returned, when mapped, then stray_payment.received and refund.settled name the ledger operation', () => {
  const out = project(stray.map((e, i) => recorded(e, i + 9)));
  assert.equal(types(out), ['stray_payment.received', 'refund.settled']);
  assert.equal(out.map((d) => d.subject), ['123456', '123456']);
  assert.not.ok(JSON.stringify(out).includes(G('X')), 'the sender’s account is not repeated');
});

test('given invoices, when mapped, then a pool’s invoice belongs to the pool’s organiser and an activation fee to the whole tenant', () => {
  const owners = new Map([[POOL, { tenantId: TENANT, ownerId: ORGANISER }]]);
  const [goods] = project([recorded(invoice(POOL), 0, `invoices-${TENANT}-x`, null)], owners);
  const [activation] = project([recorded(invoice(undefined), 1, `invoices-${TENANT}-x`, null)], owners);
  assert.equal([goods!.type, goods!.ownerId, goods!.tenantId, (goods!.data as { grandTotal: string }).grandTotal], ['invoice.issued', ORGANISER, TENANT, '21.10']);
  assert.equal([activation!.ownerId, activation!.tenantId, (activation!.data as { poolId: string | null }).poolId], [null, TENANT, null]);
  assert.not.ok('document' in goods!.data);
});

test('given a payment request’s life, when mapped, then request.* events name the req_ id as subject, the payee as owner, and never the customer', () => {
  const REQ = '3f2a1c0b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
  const stream = `request-${REQ}`;
  const life: DomainEvent[] = [
    {
      type: 'PaymentRequestCreated',
      data: {
        requestId: REQ, tenantId: TENANT, livemode: false, payeeId: ORGANISER, payeeName: 'Studio SAS', payeeWallet: G('W'), asset: { code: 'EURC', issuer: G('I') },
        memoHash: hex('5'), lines: [{ description: 'Work', quantity: 1, unitAmount: '100', vatCategory: 'S', vatRate: '20' }], subtotal: '100.00', tax: '20.00', amountDue: '120.00',
        currency: 'EUR', dueAt: at(30), customer: { name: 'Ann Buyer', email: 'ann@example.com', country: 'FR' }, description: null, metadata: {}, createdAt: at(1),
      },
    },
    { type: 'PaymentRequestPaymentRecorded', data: { requestId: REQ, livemode: false, txHash: hex('6'), ledger: 4, from: G('X'), amount: '120.00', amountPaid: '120.00', late: false, recordedAt: at(2) } },
    { type: 'PaymentRequestPaid', data: { requestId: REQ, livemode: false, amountPaid: '120.00', amountOverpaid: '0.00', paidAt: at(2) } },
  ];
  // The created event is seen in another batch than the others: its owner comes from the projection's memory.
  const owners = new Map<string, PoolOwner>();
  const out = [...project([recorded(life[0]!, 0, stream, null)], owners), ...project(life.slice(1).map((e, k) => recorded(e, k + 1, stream, null)), owners)];
  const reqId = `req_${REQ.replace(/-/g, '')}`;
  assert.equal(out.map((d) => [d.type, d.subject, d.ownerId, d.tenantId]), [
    ['request.created', reqId, ORGANISER, TENANT],
    ['request.payment_received', reqId, ORGANISER, TENANT],
    ['request.paid', reqId, ORGANISER, TENANT],
  ]);
  // Each carries the request's mode: the feed and the webhooks filter on it.
  assert.equal(out.map((d) => (d.data as { livemode?: unknown }).livemode), [false, false, false]);
  assert.not.ok(JSON.stringify(out.map((d) => d.data)).includes('ann@example.com'));
  assert.not.ok(JSON.stringify(out.map((d) => d.data)).includes('Ann Buyer'));
  // Its invoice (sourceKey request:<id>) is the payee's too.
  const base = invoice(undefined) as Extract<DomainEvent, { type: 'InvoiceIssued' }>;
  const requestInvoice: DomainEvent = { ...base, data: { ...base.data, kind: 'REQUEST', sourceKey: `request:${REQ}`, recipient: { kind: 'customer', id: REQ } } };
  const [issued] = project([recorded(requestInvoice, 0, `invoices-${TENANT}-x`, null)], owners);
  assert.equal([issued!.type, issued!.ownerId, issued!.tenantId], ['invoice.issued', ORGANISER, TENANT]);
});

test('given internal-only events, when mapped, then they give nothing', () => {
  const registered: DomainEvent = {
    type: 'AccountRegistered',
    data: { userId: B1, tenantId: TENANT, email: 'ann@example.com', phone: '+33600000000', displayName: 'Ann', role: 'user', accountType: 'CONSUMER', country: 'FR', currency: 'EUR', timezone: 'Europe/Paris', signupSource: 'web', registeredAt: at(1) },
  };
  assert.equal(project([recorded(registered, 0, `account-${B1}`)]), []);
});

test('given every event of a real flow, when mapped, then no data holds a secret, an XDR, a password, an email, a phone, a buyer’s name or a buyer’s account', () => {
  const out = projectAll(wholeFlow());
  assert.ok(out.length >= 30, `${out.length} public events`);
  const forbiddenKey = /xdr|secret|password|email|phone/i;
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) {
      assert.not.ok(forbiddenKey.test(k), `${path}.${k}`);
      walk(x, `${path}.${k}`);
    }
    else if (typeof v === 'string') for (const leak of ['ann@example.com', 'Ann Buyer', G('Q'), G('B'), G('X'), hex('9'), '203.0.113.9', 'Cracked pots']) assert.is.not(v, leak, `${path} leaks ${leak}`);
  };
  for (const d of out) walk(d.data, d.type);
});

test('given every public draft of the flow, when checked against its type’s schema, then each parses (the published shape holds)', () => {
  const seen = new Set<string>();
  for (const d of projectAll(wholeFlow()) as PublicEventDraft[]) {
    seen.add(d.type);
    assert.ok(PUBLIC_EVENT_CATALOGUE[d.type].data.safeParse(d.data).success, d.type);
  }
  assert.ok(seen.size >= 20, `${seen.size} types seen`);
});

test('given every public draft of the flow, when its subject is read, then it is the id its type declares (pool, reservation, dispute…)', () => {
  const keyOf: Record<string, (d: Record<string, unknown>) => unknown> = {
    pool: (d) => d.poolId,
    reservation: (d) => d.reservationId,
    dispute: (d) => d.disputeId,
    settlement: (d) => d.settlementId,
    invoice: (d) => d.invoiceId,
    'stray payment operation': (d) => d.operationId,
    'reservation, or stray payment operation': (d) => d.reservationId ?? d.operationId,
    'payment request': (d) => d.request,
    shipment: (d) => d.shipmentId,
  };
  for (const d of projectAll(wholeFlow()) as PublicEventDraft[]) {
    assert.is(d.subject, keyOf[PUBLIC_EVENT_CATALOGUE[d.type].subject]!(d.data as Record<string, unknown>), d.type);
  }
});

test('given a pool’s shipment created, moved forward and a parcel collected, when mapped, then relais.shipment.updated names the shipment as subject (with the status before) and relais.parcel.collected the reservation, for the pool’s organiser', () => {
  const SHIPMENT = '5a000000-0000-4000-8000-000000000001';
  const HOST = '40000000-0000-4000-8000-000000000001';
  const events: DomainEvent[] = [
    {
      type: 'PoolShipmentCreated',
      data: { ...p, shipmentId: SHIPMENT, pointId: `community:${HOST}`, network: 'community', trackingNumber: 'CMY000000000001', reservationIds: [R1], parcels: 1, weightG: 500, expectedOn: '2026-03-13', createdAt: at(20) },
    },
    {
      type: 'PoolShipmentStatusChanged',
      data: { ...p, shipmentId: SHIPMENT, trackingNumber: 'CMY000000000001', network: 'community', status: 'available_for_pickup', previous: 'label_created', carrierStatus: null, source: 'host', occurredAt: at(21), recordedAt: at(21) },
    },
    { type: 'RelaisParcelCollected', data: { ...p, shipmentId: SHIPMENT, reservationId: R1, buyerId: B1, pointId: `community:${HOST}`, hostId: HOST, collectedAt: at(22) } },
  ];
  const out = project([recorded(flow.created(), 0), ...events.map((e, i) => recorded(e, i + 1, `pool-${POOL}`, null))]).slice(1);
  assert.equal(out.map((d) => [d.type, d.subject, d.ownerId, d.tenantId]), [
    ['relais.shipment.updated', SHIPMENT, ORGANISER, TENANT],
    ['relais.shipment.updated', SHIPMENT, ORGANISER, TENANT],
    ['relais.parcel.collected', R1, ORGANISER, TENANT],
  ]);
  assert.equal(out[0]!.data, { ...p, shipmentId: SHIPMENT, trackingNumber: 'CMY000000000001', network: 'community', pointId: `community:${HOST}`, status: 'label_created', previous: null, occurredAt: at(20) });
  assert.equal([(out[1]!.data as { status: string }).status, (out[1]!.data as { previous: string }).previous], ['available_for_pickup', 'label_created']);
  assert.equal(out[2]!.data, { ...p, reservationId: R1, buyerId: B1, shipmentId: SHIPMENT, pointId: `community:${HOST}`, hostId: HOST, collectedAt: at(22) });
});

const completeness = suite('public event catalogue: completeness');

completeness('given the registry, when every internal type is looked up, then each is mapped or internal-only (with a reason), never both', () => {
  const missing = allEventDefinitions.map((d) => d.type).filter((t) => !MAPPED_EVENT_TYPES.has(t) && !(t in INTERNAL_ONLY));
  assert.equal(missing, [], `decide on these (map them in catalogue.ts or list them in INTERNAL_ONLY with a reason): ${missing.join(', ')}`);
  const both = [...MAPPED_EVENT_TYPES].filter((t) => t in INTERNAL_ONLY);
  assert.equal(both, []);
  for (const [t, reason] of Object.entries(INTERNAL_ONLY)) assert.ok(reason && reason.length > 10, `${t} needs a reason`);
  const unknown = [...MAPPED_EVENT_TYPES, ...Object.keys(INTERNAL_ONLY)].filter((t) => !allEventDefinitions.some((d) => d.type === t));
  assert.equal(unknown, []);
});

completeness('given the issue’s vocabulary, when the catalogue is read, then every named type is in it', () => {
  for (const t of ['pool.published', 'pool.closed', 'pool.settled', 'reservation.placed', 'reservation.paid', 'reservation.expired', 'reservation.cancelled', 'dispute.opened', 'dispute.resolved', 'release.settled', 'payout.settled', 'refund.settled', 'invoice.issued'])
    assert.ok(PUBLIC_EVENT_TYPES.includes(t as never), t);
});

const compat = suite('public event catalogue: compatibility with docs/public-events.json');

compat('given the published snapshot, when the current catalogue is compared with it, then no published type changed incompatibly', () => {
  const published = JSON.parse(readFileSync(resolve(__dirname, '../../../docs/public-events.json'), 'utf8')) as PublishedCatalogue;
  const current = publicEventCatalogueDocument();
  assert.is(published.apiVersion, current.apiVersion);
  const broken = incompatibilities(published, current);
  assert.equal(broken, [], `incompatible with the published catalogue (add a new type or an optional property instead):\n${broken.join('\n')}`);
});

test.run();
completeness.run();
compat.run();
