import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { grantAuditor, invoicingJobDeps, setTenantFeeSchedule, startInvoicingJobs, startListingRefunds } from '@cagnotte/command-api';
import { EscrowLedger } from '@cagnotte/infra';
import { TransactionBuilder, type Operation } from '@stellar/stellar-sdk';
import { describeValidation, validateCii } from '@cagnotte/infra/src/invoicing/validate.testing';
import { startApi, type TestApi, type TestUser } from './harness';
import { signXdr } from './wallet';

/**
 * Invoices follow settlement, end to end on the sandbox network: a pool reserved, paid, closed, released and settled
 * makes the seller's goods invoices and credit notes to its buyers and the platform's fee invoice to the seller; their
 * totals are the settlement's events; every XML passes the EN 16931 validation (XSD + CEN Schematron) with 0 fatal
 * rules; numbers run without a gap per issuer and series; only the parties and the tenant's auditors read them.
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  organiser: TestUser;
  stopJobs: () => Promise<void>;
}

const test = suite<Ctx>('invoicing: invoices and credit notes from settlement');

test.before(async (ctx) => {
  ctx.api = await startApi({ STELLAR_NETWORK_PASSPHRASE: `Cagnotte invoicing e2e ${randomUUID()}`, PLATFORM_FEE_PERCENT: '2.5' });
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Olga' });
  const business = await as(ctx, ctx.organiser).post('/api/me/become-seller', { companyName: 'Fromagerie du Jura SAS', siret: '12345678200010' });
  assert.is(business.status, 200, business.text);
  ctx.stopJobs = startInvoicingJobs(invoicingJobDeps(ctx.api.services));
});
test.after(async (ctx) => {
  await ctx.stopJobs();
  await ctx.api.stop();
});

const as = (ctx: Ctx, user: TestUser) => ({
  post: (path: string, body: unknown = {}) => ctx.api.call('POST', path, { token: user.token, tenant: ctx.tenant, body, headers: { 'Idempotency-Key': randomUUID() } }),
  get: (path: string) => ctx.api.call('GET', path, { token: user.token, tenant: ctx.tenant }),
});

const cheese = (release: 'CLOSE' | 'RECEIPT') => ({
  type: 'GROUPS',
  title: 'Fromages du Jura',
  deadline: null,
  config: { units: [{ id: 'comte', label: 'Comté 1 kg', price: '18.50', quantity: 20, tiers: [{ minQuantity: 4, price: '16.00' }] }], release: { after: release } },
});

const openPool = async (ctx: Ctx, body: Record<string, unknown>) => {
  const created = await as(ctx, ctx.organiser).post('/api/pools', body);
  assert.is(created.status, 201, created.text);
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${created.body.data.id}/publish`)).status, 200);
  return created.body.data.id as string;
};

const buy = async (ctx: Ctx, poolId: string, quantity: number, name: string) => {
  const user = await ctx.api.user(ctx.tenant, { wallet: true, name });
  const placed = await as(ctx, user).post(`/api/pools/${poolId}/reservations`, { lines: [{ unitId: 'comte', quantity }] });
  assert.is(placed.status, 201, placed.text);
  const t = (await as(ctx, user).get(`/api/pools/${poolId}/terms`)).body.data;
  const signed = await as(ctx, user).post(`/api/pools/${poolId}/reservations/${placed.body.data.id}/sign`, { acceptTerms: true, termsVersion: t.version, termsHash: t.hash });
  assert.is(signed.status, 200, signed.text);
  await user.wallet!.horizon.submitTransaction(signXdr(user.wallet!, signed.body.data.payment.xdr));
  const paid = await as(ctx, user).post(`/api/pools/${poolId}/reservations/${placed.body.data.id}/pay`, { txHash: signed.body.data.payment.hash });
  assert.is(paid.body.data.paid, true, paid.text);
  return { buyer: user, reservationId: placed.body.data.id as string, depositTx: signed.body.data.payment.hash as string };
};

const settle = async (ctx: Ctx, poolId: string) => {
  const plan = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/escrow/settlement`);
  assert.ok(plan.status === 201 || plan.status === 200, plan.text);
  const signed = plan.body.data.rounds.flatMap((r: { lock: { xdr: string }; release: { xdr: string } }) => [signXdr(ctx.organiser.wallet!, r.lock.xdr).toXDR(), signXdr(ctx.organiser.wallet!, r.release.xdr).toXDR()]);
  const done = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/escrow/settlement/submit`, { settlementId: plan.body.data.settlementId, signedXdrs: signed });
  assert.is(done.status, 200, done.text);
};

interface Summary {
  id: string;
  issuer: { kind: string; id: string };
  number: string;
  kind: string;
  typeCode: string;
  reservationId: string | null;
  corrects: string | null;
  grandTotal: string;
}

/** The caller's invoices of a pool once `count` are there (the job runs after the settlement's events are projected). */
const invoicesOf = async (ctx: Ctx, user: TestUser, poolId: string, direction: string, count: number): Promise<Summary[]> => {
  const until = Date.now() + 30_000;
  for (;;) {
    const res = await as(ctx, user).get(`/api/invoices?direction=${direction}&poolId=${poolId}&limit=100`);
    assert.is(res.status, 200, res.text);
    if (res.body.data.items.length >= count || Date.now() > until) return res.body.data.items;
    await new Promise((r) => setTimeout(r, 200));
  }
};

const stroops = (s: string) => {
  const [w, f = ''] = s.replace('-', '').split('.');
  const v = BigInt(w!) * 10_000_000n + BigInt(f.padEnd(7, '0'));
  return s.startsWith('-') ? -v : v;
};
const sum = (xs: string[]) => xs.reduce((a, x) => a + stroops(x), 0n);

const documentOf = async (ctx: Ctx, user: TestUser, id: string) => {
  const res = await as(ctx, user).get(`/api/invoices/${id}`);
  assert.is(res.status, 200, res.text);
  return res.body.data.document as { seller: { vatId?: string | null }; vatBreakdown: Array<{ category: string; rate: string }>; number: string; typeCode: string; totals: Record<string, string>; paymentReference: string; precedingInvoice?: { number: string } | null; lines: Array<{ name: string }> };
};

const validates = async (ctx: Ctx, user: TestUser, id: string) => {
  const res = await as(ctx, user).get(`/api/invoices/${id}/xml`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/xml/);
  const v = await validateCii(res.text);
  assert.ok(v.xsdValid && v.fatal.length === 0, `${id}: ${describeValidation(v)}`);
};

test('released and settled: goods invoices (prepaid = deposit), a credit note for the tier difference (= refunded), the platform fee invoice (= PLATFORM payout); all validate; gapless numbers; only the parties and auditors read them', async (ctx) => {
  const poolId = await openPool(ctx, cheese('CLOSE'));
  const ann = await buy(ctx, poolId, 2, 'Ann'); // 2 × 18.50, then the tier: 2 × 16.00, 5.00 back
  const ben = await buy(ctx, poolId, 2, 'Ben'); // 2 × 16.00
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/close`)).status, 200);
  await settle(ctx, poolId);

  const events = (await ctx.api.services.store.readStream(`pool-${poolId}`)).map((e) => ({ type: e.type, data: e.data as Record<string, string> }));
  const settledOf = (reservationId: string) => events.find((e) => e.type === 'ReservationSettled' && e.data.reservationId === reservationId)!.data;
  const depositOf = (reservationId: string) => events.find((e) => e.type === 'ReservationPaid' && e.data.reservationId === reservationId)!.data;
  const platformPaid = sum(events.filter((e) => e.type === 'EscrowPayoutSettled' && e.data.role === 'PLATFORM').map((e) => e.data.amount!));

  const annInvoices = await invoicesOf(ctx, ann.buyer, poolId, 'received', 2);
  const goods = annInvoices.find((i) => i.kind === 'GOODS')!;
  const credit = annInvoices.find((i) => i.kind === 'CREDIT_NOTE')!;
  assert.ok(goods && credit, JSON.stringify(annInvoices));
  const goodsDoc = await documentOf(ctx, ann.buyer, goods.id);
  assert.is(stroops(goodsDoc.totals.prepaid!), stroops(depositOf(ann.reservationId).amount!), 'the goods invoice is prepaid by the deposit');
  assert.is(stroops(goodsDoc.totals.grandTotal!) + stroops(goodsDoc.totals.rounding!), stroops(depositOf(ann.reservationId).amount!));
  assert.is(goodsDoc.paymentReference, depositOf(ann.reservationId).txHash);
  assert.equal([goodsDoc.seller.vatId, goodsDoc.vatBreakdown.map((b) => `${b.category} ${b.rate}`)], ['FR11123456782', ['S 20']], 'a French business seller: its VAT id from the SIRET, S at 20 %');
  const creditDoc = await documentOf(ctx, ann.buyer, credit.id);
  assert.is(creditDoc.typeCode, '381');
  assert.is(credit.corrects, goods.id);
  assert.is(creditDoc.precedingInvoice?.number, goods.number);
  assert.is(stroops(creditDoc.totals.grandTotal!), stroops(settledOf(ann.reservationId).refunded!), 'the credit note is what was refunded');
  assert.is(creditDoc.paymentReference, settledOf(ann.reservationId).txHash);

  const benInvoices = await invoicesOf(ctx, ben.buyer, poolId, 'received', 1);
  assert.equal(benInvoices.map((i) => i.kind), ['GOODS'], 'Ben paid the tier price: no credit note');

  const received = await invoicesOf(ctx, ctx.organiser, poolId, 'received', 1);
  assert.equal(received.map((i) => i.kind), ['PLATFORM_FEE']);
  const fee = await documentOf(ctx, ctx.organiser, received[0]!.id);
  assert.is(stroops(fee.totals.grandTotal!), platformPaid, 'platform fee invoice: net + VAT = the PLATFORM payout');
  assert.is(stroops(fee.totals.prepaid!), platformPaid);
  const issued = await invoicesOf(ctx, ctx.organiser, poolId, 'issued', 3);
  assert.equal(issued.map((i) => i.kind).sort(), ['CREDIT_NOTE', 'GOODS', 'GOODS']);

  // Numbers: this seller's first goods invoices and credit note, the tenant platform's first fee invoice.
  const year = new Date().getUTCFullYear();
  assert.equal(issued.filter((i) => i.kind === 'GOODS').map((i) => i.number).sort(), [`F-${year}-000001`, `F-${year}-000002`]);
  assert.is(credit.number, `A-${year}-000001`);
  assert.is(received[0]!.number, `P-${year}-000001`);

  for (const [user, id] of [[ann.buyer, goods.id], [ann.buyer, credit.id], [ben.buyer, benInvoices[0]!.id], [ctx.organiser, received[0]!.id]] as const) await validates(ctx, user, id);
  const pdf = await as(ctx, ann.buyer).get(`/api/invoices/${goods.id}/pdf`);
  assert.is(pdf.status, 200);
  assert.is(pdf.headers.get('content-type'), 'application/pdf');
  assert.is(pdf.headers.get('content-disposition'), `attachment; filename="${goods.number}.pdf"`);

  // Another account's invoice is a 404; the tenant's auditor reads and downloads all of them.
  assert.is((await as(ctx, ben.buyer).get(`/api/invoices/${goods.id}`)).status, 404);
  assert.is((await as(ctx, ben.buyer).get(`/api/invoices/${goods.id}/xml`)).status, 404);
  assert.is((await as(ctx, ben.buyer).get('/api/audit/invoices')).status, 404);
  const auditor = await ctx.api.user(ctx.tenant, { name: 'Audrey' });
  const granted = await grantAuditor(ctx.api.services, { slug: ctx.tenant, userId: auditor.id }, { actor: { kind: 'operator', id: 'e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });
  await ctx.api.runner.catchUp(granted.position!);
  const all = await as(ctx, auditor).get(`/api/audit/invoices?poolId=${poolId}`);
  assert.is(all.status, 200, all.text);
  assert.is(all.body.data.items.length, 4);
  assert.is((await as(ctx, auditor).get(`/api/audit/invoices?poolId=${poolId}&type=381`)).body.data.items.length, 1);
  assert.is((await as(ctx, auditor).get(`/api/invoices/${credit.id}/pdf`)).status, 200);
});

test('a dispute refund: the credit note names it, equals what went back, and validates', async (ctx) => {
  const poolId = await openPool(ctx, cheese('RECEIPT'));
  const hal = await buy(ctx, poolId, 1, 'Hal');
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/close`)).status, 200);
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/delivered`, { note: 'at the farm shop' })).status, 200);
  assert.is((await as(ctx, hal.buyer).post(`/api/pools/${poolId}/reservations/${hal.reservationId}/disputes`, { reason: 'DAMAGED', details: 'mouldy' })).status, 201);
  const disputeId = (await ctx.api.services.store.readStream(`pool-${poolId}`)).map((e) => e.data as { disputeId?: string }).find((d) => d.disputeId)!.disputeId!;
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/disputes/${disputeId}/refund`, { amount: '8.50' })).status, 200);
  await settle(ctx, poolId);

  const refunded = (await ctx.api.services.store.readStream(`pool-${poolId}`)).map((e) => e.data as Record<string, string>).find((d) => d.reservationId === hal.reservationId && d.refunded !== undefined)!.refunded!;
  const invoices = await invoicesOf(ctx, hal.buyer, poolId, 'received', 2);
  const credit = invoices.find((i) => i.kind === 'CREDIT_NOTE')!;
  assert.ok(credit, JSON.stringify(invoices));
  const doc = await documentOf(ctx, hal.buyer, credit.id);
  assert.is(stroops(doc.totals.grandTotal!), stroops(refunded));
  assert.is(stroops(refunded), stroops('8.50'));
  assert.equal(doc.lines.map((l) => l.name), ['Dispute refund (damaged)']);
  await validates(ctx, hal.buyer, credit.id);
  const year = new Date().getUTCFullYear();
  assert.is(credit.number, `A-${year}-000002`, 'the seller’s credit notes run on without a gap');
});

test('an escrow-deposit fee: quoted, placed, signed and paid as one total; at release the platform gets it whole and invoices it to the buyer; the goods invoice is the goods alone', async (ctx) => {
  // A white-label tenant of its own, charging 1 % + 0.20 on each deposit (the operator's `tenant fees … --escrow-deposit`).
  const tenant = (await ctx.api.tenant({ whiteLabel: true })).slug;
  const organiser = await ctx.api.user(tenant, { role: 'organiser', name: 'Odile' });
  const own: Ctx = { ...ctx, tenant, organiser };
  assert.is((await as(own, organiser).post('/api/me/become-seller', { companyName: 'Miellerie du Jura SAS', siret: '12345678200010' })).status, 200);
  const meta = { actor: { kind: 'operator' as const, id: 'invoicing-e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() };
  await setTenantFeeSchedule(ctx.api.services, ctx.api.services.config, tenant, (sched) => ({ ...sched, escrowDeposit: { percent: '1', fixed: '0.20', min: '0', cap: null } }), meta);
  const poolId = await openPool(own, cheese('CLOSE'));

  const ann = await ctx.api.user(tenant, { wallet: true, name: 'Ann' });
  const quote = await as(own, ann).post(`/api/pools/${poolId}/quote`, { lines: [{ unitId: 'comte', quantity: 2 }] });
  assert.is(quote.status, 200, quote.text);
  // 2 × 18.50 = 37.00; 1 % = 0.37, + 0.20 = 0.57.
  assert.equal([quote.body.data.goods, quote.body.data.depositFee, quote.body.data.total], ['37.00', '0.57', '37.57']);
  const placed = await as(own, ann).post(`/api/pools/${poolId}/reservations`, { lines: [{ unitId: 'comte', quantity: 2 }], quoteId: quote.body.data.quoteId });
  assert.is(placed.status, 201, placed.text);
  assert.equal([placed.body.data.amount, placed.body.data.depositFee], ['37.57', '0.57'], 'the reservation is charged the quote’s total, its fee shown apart');
  const read = await as(own, ann).get(`/api/me/reservations/${placed.body.data.id}`);
  assert.equal([read.status, read.body.data?.amount, read.body.data?.depositFee], [200, '37.57', '0.57'], `the read side shows it too: ${read.text}`);
  const t = (await as(own, ann).get(`/api/pools/${poolId}/terms`)).body.data;
  const signed = await as(own, ann).post(`/api/pools/${poolId}/reservations/${placed.body.data.id}/sign`, { acceptTerms: true, termsVersion: t.version, termsHash: t.hash });
  assert.is(signed.status, 200, signed.text);
  const payment = signed.body.data.payment;
  const op = TransactionBuilder.fromXDR(payment.xdr, payment.networkPassphrase).operations[0] as Operation.CreateClaimableBalance;
  assert.is(stroops(op.amount), stroops('37.57'), 'the deposit the buyer signs is exactly the quoted total');
  await ann.wallet!.horizon.submitTransaction(signXdr(ann.wallet!, payment.xdr));
  const paid = await as(own, ann).post(`/api/pools/${poolId}/reservations/${placed.body.data.id}/pay`, { txHash: payment.hash });
  assert.is(paid.body.data.paid, true, paid.text);
  const ben = await buy(own, poolId, 2, 'Ben'); // the tier: 2 × 16.00 = 32.00, fee 0.32 + 0.20 = 0.52
  assert.is((await as(own, organiser).post(`/api/pools/${poolId}/close`)).status, 200);
  await settle(own, poolId);

  const events = (await ctx.api.services.store.readStream(`pool-${poolId}`)).map((e) => ({ type: e.type, data: e.data as Record<string, string> }));
  const platformPaid = sum(events.filter((e) => e.type === 'EscrowPayoutSettled' && e.data.role === 'PLATFORM').map((e) => e.data.amount!));
  const annInvoices = await invoicesOf(own, ann, poolId, 'received', 3);
  assert.equal(annInvoices.map((i) => i.kind).sort(), ['CREDIT_NOTE', 'DEPOSIT_FEE', 'GOODS'], JSON.stringify(annInvoices));
  const goods = annInvoices.find((i) => i.kind === 'GOODS')!;
  const depositFee = annInvoices.find((i) => i.kind === 'DEPOSIT_FEE')!;
  const credit = annInvoices.find((i) => i.kind === 'CREDIT_NOTE')!;
  assert.is((await documentOf(own, ann, goods.id)).totals.prepaid, '37.00', 'the goods invoice: the goods, not the fee');
  const feeDoc = await documentOf(own, ann, depositFee.id);
  assert.equal([feeDoc.totals.grandTotal, feeDoc.totals.prepaid, feeDoc.totals.duePayable], ['0.57', '0.57', '0.00']);
  assert.is(feeDoc.paymentReference, payment.hash);
  assert.is((await documentOf(own, ann, credit.id)).totals.grandTotal, '5.00', 'the tier difference alone goes back, not the fee');
  const year = new Date().getUTCFullYear();
  const benFee = (await invoicesOf(own, ben.buyer, poolId, 'received', 2)).find((i) => i.kind === 'DEPOSIT_FEE')!;
  assert.is(benFee.grandTotal, '0.52');
  // The two jobs run concurrently: either may take the first number, and together they take the first two.
  assert.equal([depositFee.number, benFee.number].sort(), [`D-${year}-000001`, `D-${year}-000002`], 'the platform’s deposit-fee series, without a gap');

  // The PLATFORM payouts are the platform fee invoice plus the deposit fees, to the stroop.
  const platformFee = (await invoicesOf(own, organiser, poolId, 'received', 1)).find((i) => i.kind === 'PLATFORM_FEE')!;
  assert.is(platformPaid, stroops(platformFee.grandTotal) + stroops('0.57') + stroops('0.52'));
  for (const [user, id] of [[ann, depositFee.id], [ann, goods.id], [organiser, platformFee.id]] as const) await validates(own, user, id);
});

test('a brokered pool: the organiser’s commission invoice to the seller (issued under the COMMISSION mandate) and the platform’s fee invoice equal the ORGANISER and PLATFORM payouts, and validate', async (ctx) => {
  const tenant = (await ctx.api.tenant({ whiteLabel: true })).slug;
  const organiser = await ctx.api.user(tenant, { role: 'organiser', name: 'Bruno' });
  const seller = await ctx.api.user(tenant, { wallet: true, name: 'Sandrine' });
  const own: Ctx = { ...ctx, tenant, organiser };
  assert.is((await as(own, organiser).post('/api/me/become-seller', { companyName: 'Courtage Bruno SARL', siret: '12345678200010' })).status, 200);
  assert.is((await as(own, seller).post('/api/me/become-seller', { companyName: 'Vergers de Sandrine SAS', siret: '73282932000074' })).status, 200);
  const created = await as(own, organiser).post('/api/merchant/pools', {
    type: 'GROUPS',
    title: 'Pommes du verger',
    sellerIdentifier: seller.email,
    organiserCommissionPercent: '10',
    acceptCommissionMandate: true,
    config: { units: [{ id: 'comte', label: 'Cageot 5 kg', price: '18.50', quantity: 20 }], release: { after: 'CLOSE' } },
  });
  assert.is(created.status, 201, created.text);
  const poolId = created.body.data.id as string;
  assert.is((await as(own, organiser).post(`/api/pools/${poolId}/publish`)).status, 200);
  const cleo = await buy(own, poolId, 2, 'Cléo');
  assert.is((await as(own, organiser).post(`/api/pools/${poolId}/close`)).status, 200);
  await settle(own, poolId);

  const events = (await ctx.api.services.store.readStream(`pool-${poolId}`)).map((e) => ({ type: e.type, data: e.data as Record<string, string> }));
  const paidTo = (role: string) => sum(events.filter((e) => e.type === 'EscrowPayoutSettled' && e.data.role === role).map((e) => e.data.amount!));
  const received = await invoicesOf(own, seller, poolId, 'received', 2);
  assert.equal(received.map((i) => i.kind).sort(), ['COMMISSION', 'PLATFORM_FEE'], JSON.stringify(received));
  const commission = received.find((i) => i.kind === 'COMMISSION')!;
  const fee = received.find((i) => i.kind === 'PLATFORM_FEE')!;
  const commissionDoc = await documentOf(own, seller, commission.id);
  assert.is(stroops(commissionDoc.totals.grandTotal!), paidTo('ORGANISER'), 'the commission invoice is what the organiser was paid');
  assert.ok(paidTo('ORGANISER') > 0n);
  assert.is(stroops((await documentOf(own, seller, fee.id)).totals.grandTotal!), paidTo('PLATFORM'));
  assert.equal([commissionDoc.seller.vatId, commissionDoc.vatBreakdown.map((b) => `${b.category} ${b.rate}`)], ['FR11123456782', ['S 20']], 'the organiser’s VAT id, the VAT the closing froze');
  const mandate = (commissionDoc as unknown as { notes?: string[] }).notes ?? [];
  assert.ok(mandate.some((n) => n.includes('COMMISSION mandate') && n.includes('Courtage Bruno SARL')), JSON.stringify(mandate));
  const year = new Date().getUTCFullYear();
  assert.is(commission.number, `C-${year}-000001`);
  const issued = await invoicesOf(own, organiser, poolId, 'issued', 1);
  assert.equal(issued.map((i) => i.id), [commission.id], 'the organiser issued the commission invoice (the goods invoice is the seller’s)');
  const goods = (await invoicesOf(own, seller, poolId, 'issued', 1)).find((i) => i.kind === 'GOODS')!;
  assert.is(goods.reservationId, cleo.reservationId);
  for (const [user, id] of [[seller, commission.id], [seller, fee.id], [cleo.buyer, goods.id]] as const) await validates(own, user, id);
});

test('fees paid outside a settlement: the listing fee invoiced to the organiser and, paid back on a delist, its credit note; the organiser activation fee invoiced to the new organiser', async (ctx) => {
  const tenant = (await ctx.api.tenant({ whiteLabel: true, listingFees: { LISTED: '5', FEATURED: '20' } })).slug;
  const organiser = await ctx.api.user(tenant, { role: 'organiser', name: 'Lina' });
  const own: Ctx = { ...ctx, tenant, organiser };
  const poolId = await openPool(own, cheese('CLOSE'));
  const listing = (await as(own, organiser).post(`/api/pools/${poolId}/list`, { tier: 'LISTED' })).body.data.listing;
  const listed = await as(own, organiser).post(`/api/pools/${poolId}/list/submit`, { listingId: listing.listingId, signedXdr: signXdr(organiser.wallet!, listing.xdr).toXDR() });
  assert.is(listed.body.data.listed, true, listed.text);
  const [fee] = await invoicesOf(own, organiser, poolId, 'received', 1);
  assert.equal([fee!.kind, fee!.grandTotal, fee!.issuer.kind], ['LISTING_FEE', '5.00', 'platform']);
  assert.is((await documentOf(own, organiser, fee!.id)).paymentReference, listing.hash);

  const stopRefunds = startListingRefunds(ctx.api.services, new EscrowLedger(ctx.api.services.ledger));
  try {
    const delist = await ctx.api.call('PATCH', `/api/pools/${poolId}`, { token: organiser.token, tenant, body: { marketplaceVisibility: 'PRIVATE' } });
    assert.is(delist.status, 200, delist.text);
    const invoices = await invoicesOf(own, organiser, poolId, 'received', 2);
    const credit = invoices.find((i) => i.kind === 'CREDIT_NOTE');
    assert.ok(credit, `a credit note once the fee was paid back: ${JSON.stringify(invoices)}`);
    assert.equal([credit!.typeCode, credit!.grandTotal, credit!.corrects], ['381', '5.00', fee!.id]);
    const refund = (await ctx.api.services.store.readStream(`pool-${poolId}`)).find((e) => e.type === 'PoolListingFeeRefunded')!.data as { txHash: string };
    assert.is((await documentOf(own, organiser, credit!.id)).paymentReference, refund.txHash);
    for (const id of [fee!.id, credit!.id]) await validates(own, organiser, id);
  } finally {
    await stopRefunds();
  }

  // A buyer becomes an organiser: the 1-unit activation fee, invoiced by the platform; no pool.
  const newcomer = await ctx.api.user(tenant, { wallet: true, name: 'Noé' });
  const grant = (await as(own, newcomer).post('/api/me/become-organiser/prepare')).body.data;
  await newcomer.wallet!.horizon.submitTransaction(signXdr(newcomer.wallet!, grant.xdr));
  const done = await as(own, newcomer).post('/api/me/become-organiser/submit', { grantId: grant.grantId, txHash: grant.txHash });
  assert.is(done.body.data.settled, true, done.text);
  const until = Date.now() + 30_000;
  let activation: Summary & { poolId: string | null } | undefined;
  while (!activation && Date.now() < until) {
    const res = await as(own, newcomer).get('/api/invoices?direction=received&kind=ACTIVATION_FEE');
    assert.is(res.status, 200, res.text);
    activation = res.body.data.items[0];
    if (!activation) await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(activation, 'the activation fee invoice');
  assert.equal([activation!.grandTotal, activation!.poolId, activation!.number], ['1.00', null, `O-${new Date().getUTCFullYear()}-000001`]);
  assert.is((await documentOf(own, newcomer, activation!.id)).paymentReference, grant.txHash);
  await validates(own, newcomer, activation!.id);
});

test.run();
