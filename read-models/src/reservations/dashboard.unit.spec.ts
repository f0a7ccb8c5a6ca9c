import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PoolDraftFields } from '@cagnotte/event-schemas';
import type { PoolRow } from '../pools/tables';
import type { PoolDocument } from '../pools/fold';
import { orderView, organiserDashboard, spendingOf } from './dashboard';
import type { ReservationRow } from './tables';

const Dashboard = suite('reservations dashboards (pure)');

const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const ORG = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const at = (minute: number) => new Date(Date.UTC(2026, 0, 5, 9, minute));
const NOW = at(30);
let n = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;

const fields = (o: Partial<PoolDraftFields> = {}): PoolDraftFields => ({
  title: 'T',
  description: '',
  country: 'FR',
  currency: 'EUR',
  marketplaceVisibility: 'PRIVATE',
  config: { units: [{ id: 'u1', label: 'U', price: '10.00', quantity: 8 }] },
  sellerId: null,
  payoutAccount: null,
  organiserCommissionPercent: null,
  targetAmount: null,
  deadline: null,
  ...o,
});
const pool = (o: { type?: 'GROUPS' | 'FUNDING'; status?: PoolDocument['status']; archived?: boolean; created: number; fields?: PoolDraftFields; escrowDoc?: Partial<PoolDocument> }): PoolRow => {
  const id = uuid();
  const doc: PoolDocument = {
    status: o.status ?? 'OPEN',
    id,
    tenantId: TENANT,
    type: o.type ?? 'GROUPS',
    organiserId: ORG,
    organiserName: 'Org',
    fields: o.fields ?? fields(),
    archivedAt: o.archived ? at(1).toISOString() : null,
    publishedAt: null,
    createdAt: at(o.created).toISOString(),
    updatedAt: at(o.created).toISOString(),
    ...o.escrowDoc,
  };
  return { id, tenant_id: TENANT, organiser_id: ORG, type: doc.type, status: doc.status, marketplace_visibility: 'PRIVATE', archived_at: o.archived ? at(1) : null, country: 'FR', title: 'T', doc, created_at: at(o.created), updated_at: at(o.created), revision: '1' };
};
const reservation = (poolId: string, status: ReservationRow['status'], quantity: number, amount: string, expiresMinute = 60, buyer = uuid()): ReservationRow => ({
  id: uuid(),
  pool_id: poolId,
  tenant_id: TENANT,
  buyer_id: buyer,
  buyer_name: 'B',
  status,
  lines: quantity ? [{ unitId: 'u1', quantity, unitPrice: '10.00' }] : [],
  pledge: quantity ? null : amount,
  amount,
  relais_id: null,
  placed_at: at(0),
  expires_at: at(expiresMinute),
  signed: null,
  payment: status === 'PAID' ? { txHash: 'a'.repeat(64), ledger: 1, balanceId: 'b'.repeat(72), amount, paidAt: at(2).toISOString(), via: 'txHash' } : null,
  late_payments: [],
  ended_at: null,
  revision: '2',
});

Dashboard('given held, paid, stale and cancelled reservations, then units, amounts and fill rate count only what holds at now', () => {
  const p = pool({ created: 5 });
  const rows = [
    reservation(p.id, 'PAID', 2, '20.00'),
    reservation(p.id, 'PENDING', 1, '10.00'),
    reservation(p.id, 'PENDING', 3, '30.00', 10), // stale at NOW: lazy expiry
    reservation(p.id, 'CANCELLED', 4, '40.00'),
  ];
  const [line] = organiserDashboard([p], rows, NOW).pools;
  assert.equal(
    [line!.stock, line!.unitsHeld, line!.unitsPaid, line!.fillRate, line!.amountHeld, line!.amountPaid, line!.reservations],
    [8, 1, 2, '0.3750', '10.00', '20.00', { PENDING: 1, PAID: 1, EXPIRED: 1, CANCELLED: 1 }],
  );
  assert.equal(line!.pendingActions, ['list']);
});

Dashboard('given an unlimited unit, a FUNDING goal and a draft, then fill rates and pending actions follow; archived pools come last', () => {
  const unlimited = pool({ created: 9, fields: fields({ config: { units: [{ id: 'u1', label: 'U', price: '10.00' }] } }) });
  const funding = pool({ type: 'FUNDING', created: 8, fields: fields({ config: {}, targetAmount: '200.00' }) });
  const draft = pool({ status: 'DRAFT', created: 7 });
  const archived = pool({ created: 20, archived: true });
  const d = organiserDashboard([archived, draft, funding, unlimited], [reservation(funding.id, 'PAID', 0, '50.00'), reservation(unlimited.id, 'PAID', 5, '50.00')], NOW);
  assert.equal(d.pools.map((l) => l.poolId), [unlimited.id, funding.id, draft.id, archived.id]);
  assert.equal(d.pools.map((l) => l.fillRate), [null, '0.2500', '0.0000', '0.0000']);
  assert.equal(d.pools[2]!.pendingActions, ['publish']);
  assert.equal(d.totals, { pools: 4, unitsHeld: 0, unitsPaid: 5, amountHeld: '0.00', amountPaid: '100.00', amountOwedBack: '0.00' });
});

Dashboard('given FUNDING deposits that included escrow-deposit fees, then the fill rate counts the goods (as the closing does) while the amounts are what is in escrow', () => {
  const funding = pool({ type: 'FUNDING', created: 8, fields: fields({ config: {}, targetAmount: '100.00' }) });
  const rows = [{ ...reservation(funding.id, 'PAID', 0, '51.00'), deposit_fee: '1.00' }, { ...reservation(funding.id, 'PENDING', 0, '50.50'), deposit_fee: '0.50' }];
  const [line] = organiserDashboard([funding], rows, NOW).pools;
  assert.equal([line!.fillRate, line!.amountPaid, line!.amountHeld], ['1.0000', '51.00', '50.50']);
});

Dashboard('spending: escrowed sums PAID deposits, committed live PENDING; a stale PENDING counts nowhere', () => {
  const p = pool({ created: 1 });
  const rows = [reservation(p.id, 'PAID', 1, '12.5'), reservation(p.id, 'PAID', 1, '0.0000001'), reservation(p.id, 'PENDING', 1, '7.25'), reservation(p.id, 'PENDING', 1, '99.00', 10)];
  assert.equal(spendingOf(rows, NOW), { currency: 'EUR', committed: '7.25', escrowed: '12.5000001', released: '0.00' });
});

const closedAt = at(20).toISOString();
const closing = (after: 'CLOSE' | 'RECEIPT', deliveredAt: string | null = null): PoolDocument['closing'] => ({
  outcome: 'SUCCEEDED',
  reason: 'DEADLINE',
  closedAt,
  paidUnits: 3,
  paidAmount: '30.00',
  finalPrices: [],
  release: { after, inspectionDays: 7, disputeResponseDays: 3 },
  deliveredAt,
  inspectionEndsAt: deliveredAt ? at(59).toISOString() : null,
});
const escrow = { accountId: `G${'E'.repeat(55)}`, reclaimAfter: at(59).toISOString() };
const line = (balanceId: string, released: string, refunded: string, kind: 'DEPOSIT' | 'LATE_DEPOSIT' = 'DEPOSIT') => ({
  balanceId,
  kind,
  settlementId: uuid(),
  path: 'RELEASE' as const,
  released,
  refunded,
  txHash: 'f'.repeat(64),
  settledAt: at(25).toISOString(),
});
const dispute = (status: 'OPEN' | 'CONTESTED' | 'REFUNDED') => ({
  disputeId: uuid(),
  status,
  reason: 'DAMAGED',
  details: '',
  evidence: [],
  amount: '10.00',
  respondBy: at(40).toISOString(),
  lapsesAt: null,
  refund: status === 'REFUNDED' ? '10.00' : null,
  openedAt: at(21).toISOString(),
  resolvedAt: null,
});
const withEscrow = (r: ReservationRow, e: Partial<NonNullable<ReservationRow['escrow']>>): ReservationRow => ({ ...r, escrow: { acceptance: null, dispute: null, settlements: [], ...e } });

Dashboard('given a successful pool released on receipt, not delivered, with an OPEN dispute and nothing accepted, then deliver and respond_dispute, not settle', () => {
  const p = pool({ status: 'LOCKED', created: 1, escrowDoc: { closing: closing('RECEIPT'), escrow } });
  const rows = [withEscrow(reservation(p.id, 'PAID', 1, '10.00'), { dispute: dispute('OPEN') }), reservation(p.id, 'PAID', 2, '20.00')];
  assert.equal(organiserDashboard([p], rows, NOW).pools[0]!.pendingActions, ['deliver', 'respond_dispute']);
});

Dashboard('given a delivered pool, when one reservation is accepted (or its dispute ended), then settle; a contested dispute waits for the buyer', () => {
  const p = pool({ status: 'LOCKED', created: 1, escrowDoc: { closing: closing('RECEIPT', at(22).toISOString()), escrow } });
  const contested = withEscrow(reservation(p.id, 'PAID', 1, '10.00'), { dispute: dispute('CONTESTED') });
  assert.equal(organiserDashboard([p], [contested], NOW).pools[0]!.pendingActions, []);
  const accepted = withEscrow(reservation(p.id, 'PAID', 1, '10.00'), { acceptance: { by: 'AUTO', at: at(23).toISOString() } });
  assert.equal(organiserDashboard([p], [contested, accepted], NOW).pools[0]!.pendingActions, ['settle']);
  const refunded = withEscrow(reservation(p.id, 'PAID', 1, '10.00'), { dispute: dispute('REFUNDED') });
  assert.equal(organiserDashboard([p], [refunded], NOW).pools[0]!.pendingActions, ['settle']);
});

Dashboard('given a pool released at closing, a failed or a cancelled pool, then every unsettled PAID deposit is due; settled ones and a merged escrow are not', () => {
  const forPool = (status: PoolDocument['status'], extra: Partial<PoolDocument> = {}) => pool({ status, created: 1, escrowDoc: { closing: closing('CLOSE'), escrow, ...extra } });
  for (const status of ['LOCKED', 'FAILED', 'CANCELLED'] as const) {
    const p = forPool(status);
    const paid = reservation(p.id, 'PAID', 1, '10.00');
    assert.equal(organiserDashboard([p], [paid], NOW).pools[0]!.pendingActions, ['settle'], status);
    assert.equal(organiserDashboard([p], [withEscrow(paid, { settlements: [line(paid.payment!.balanceId, '10.00', '0.00')] })], NOW).pools[0]!.pendingActions, [], `${status}, settled`);
  }
  const merged = forPool('SETTLED', { settledAt: at(30).toISOString() });
  assert.equal(organiserDashboard([merged], [reservation(merged.id, 'PAID', 1, '10.00')], NOW).pools[0]!.pendingActions, []);
  const open = forPool('OPEN', { closing: null });
  assert.equal(organiserDashboard([open], [reservation(open.id, 'PAID', 1, '10.00')], NOW).pools[0]!.pendingActions, ['list']);
});

Dashboard('given a late deposit on a closed pool, then settle and refundLatePayments until a settlement refunds it; owed back counts only what is left', () => {
  const p = pool({ status: 'LOCKED', created: 1, escrowDoc: { closing: closing('RECEIPT', at(22).toISOString()), escrow } });
  const base = reservation(p.id, 'EXPIRED', 1, '10.00');
  const late = { ...base, signed: null, late_payments: [{ txHash: 'e'.repeat(64), ledger: 3, balanceId: 'e'.repeat(72), amount: '10.00', receivedAt: at(12).toISOString() }] };
  const owed = organiserDashboard([p], [late], NOW).pools[0]!;
  assert.equal([owed.pendingActions, owed.amountOwedBack], [['refundLatePayments', 'settle'], '10.00']);
  const refunded = withEscrow(late, { settlements: [line('e'.repeat(72), '0.00', '10.00', 'LATE_DEPOSIT')] });
  const after = organiserDashboard([p], [refunded], NOW).pools[0]!;
  assert.equal([after.pendingActions, after.amountOwedBack], [[], '0.00']);
  // An OPEN pool refunds it at once too: settle (the settlement of only what it owes back), not only at closing.
  const open = pool({ status: 'OPEN', created: 2, escrowDoc: { closing: null, escrow } });
  const onOpen = organiserDashboard([open], [{ ...late, pool_id: open.id }, reservation(open.id, 'PAID', 1, '10.00')], NOW).pools[0]!;
  assert.equal([onOpen.pendingActions, onOpen.amountOwedBack], [['list', 'refundLatePayments', 'settle'], '10.00']);
  assert.equal(organiserDashboard([open], [reservation(open.id, 'PAID', 1, '10.00')], NOW).pools[0]!.pendingActions, ['list'], 'its PAID deposits wait for the closing');
});

Dashboard('the buyer\'s order shows the escrow actions of its pool: receipt and dispute on a LOCKED pool released on receipt', () => {
  const p = pool({ status: 'LOCKED', created: 1, escrowDoc: { closing: closing('RECEIPT', at(22).toISOString()), escrow } });
  assert.equal(orderView(reservation(p.id, 'PAID', 1, '10.00'), p, NOW).actions, ['confirm_receipt', 'dispute']);
  assert.equal(orderView(reservation(p.id, 'PAID', 1, '10.00'), undefined, NOW).actions, [], 'the pool not projected yet: no escrow action');
});

Dashboard('spending: a settled deposit is no longer escrowed; what it paid out is released, what came back is not spent', () => {
  const p = pool({ created: 1 });
  const settled = reservation(p.id, 'PAID', 3, '30.00');
  const rows = [withEscrow(settled, { settlements: [line(settled.payment!.balanceId, '25.00', '5.00')] }), reservation(p.id, 'PAID', 1, '10.00')];
  assert.equal(spendingOf(rows, NOW), { currency: 'EUR', committed: '0.00', escrowed: '10.00', released: '25.00' });
});

Dashboard.run();
