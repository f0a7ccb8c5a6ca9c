import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setTenantFeeSchedule } from '@cagnotte/command-api';
import { startApi, type TestApi, type TestUser } from './harness';

/** The Fees area through HTTP: the commission resolver and the escrow-deposit quote, white-label tenants only. */
interface Ctx {
  api: TestApi;
  tenant: string;
  closed: string;
  organiser: TestUser;
  seller: TestUser;
  buyer: TestUser;
  outsider: TestUser;
}

const test = suite<Ctx>('fees: commission resolver and deposit quote');
const PLATFORM_VAT_ID = 'FR40123456824';

test.before(async (ctx) => {
  ctx.api = await startApi({ PLATFORM_VAT_ID, PLATFORM_COUNTRY: 'FR' });
  ctx.tenant = (await ctx.api.tenant({ whiteLabel: true })).slug;
  ctx.closed = (await ctx.api.tenant({ whiteLabel: false })).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', accountType: 'BUSINESS' });
  ctx.seller = await ctx.api.user(ctx.tenant, { accountType: 'BUSINESS' });
  ctx.buyer = await ctx.api.user(ctx.tenant);
  ctx.outsider = await ctx.api.user(ctx.tenant, { role: 'organiser', wallet: false });
  const meta = { actor: { kind: 'operator' as const, id: 'fees-e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() };
  await setTenantFeeSchedule(ctx.api.services, ctx.api.services.config, ctx.tenant, (s) => ({ ...s, payment: { percent: '2.5', fixed: '0.30', min: '0.50', cap: '20' } }), meta);
});
test.after(async (ctx) => ctx.api.stop());

const post = (ctx: Ctx, user: TestUser, path: string, body: unknown) => ctx.api.call('POST', path, { token: user.token, tenant: user.tenant, body });

const brokeredPool = async (ctx: Ctx, extra: Record<string, unknown> = {}) => {
  const created = await post(ctx, ctx.organiser, '/api/merchant/pools', {
    type: 'GROUPS',
    title: 'Miel de lavande',
    sellerIdentifier: ctx.seller.email,
    organiserCommissionPercent: '10',
    acceptCommissionMandate: true,
    config: { units: [{ id: 'pot', label: 'Pot 500 g', price: '12.50', quantity: 100, tiers: [{ minQuantity: 3, price: '11.00' }] }] },
    ...extra,
  });
  assert.is(created.status, 201, created.text);
  return created.body.data.id as string;
};

test('with the white-label toggle off, both endpoints are 404 whatever the body', async (ctx) => {
  const user = await ctx.api.user(ctx.closed, { role: 'organiser', wallet: false });
  const commission = await post(ctx, user, '/api/fees/commission', { amount: '100' });
  assert.is(commission.status, 404, commission.text);
  assert.is(commission.body.success, false);
  assert.is((await post(ctx, user, '/api/fees/commission', { nonsense: true })).status, 404);
  assert.is((await post(ctx, user, `/api/pools/${randomUUID()}/quote`, { lines: [] })).status, 404);
  assert.is((await ctx.api.call('POST', '/api/fees/commission', { body: { amount: '1' } })).status, 401, 'Bearer first');
});

test('a brokered pool with the COMMISSION mandate: five lines, each with its rule, summing to the amount', async (ctx) => {
  const poolId = await brokeredPool(ctx);
  const res = await post(ctx, ctx.organiser, '/api/fees/commission', { poolId, amount: '100' });
  assert.is(res.status, 200, res.text);
  const d = res.body.data;
  assert.equal(
    d.lines.map((l: { kind: string; amount: string; recipient: { role: string; id: string } }) => [l.kind, l.amount, l.recipient.role, l.recipient.id]),
    [
      ['SELLER_PAYOUT', '86.64', 'SELLER', ctx.seller.id],
      ['ORGANISER_COMMISSION', '10.00', 'ORGANISER', ctx.organiser.id],
      ['VAT_ON_ORGANISER_COMMISSION', '0.00', 'ORGANISER', ctx.organiser.id],
      ['PLATFORM_FEE', '2.80', 'PLATFORM', 'platform'],
      ['VAT_ON_PLATFORM_FEE', '0.56', 'PLATFORM', 'platform'],
    ],
  );
  assert.match(d.lines[3].rule, /2.5 % \+ 0.30, min 0.50, cap 20.00/);
  assert.equal(d.lines[4].vat, { category: 'S', rate: '20' });
  assert.equal(d.lines[2].vat, { category: 'O', rate: '0' }, 'an organiser without a VAT id is not subject');
  assert.is(d.commission.applies, true);
  assert.is(d.rules.commissionMandate, true);

  const small = (await post(ctx, ctx.organiser, '/api/fees/commission', { poolId, amount: '5.5555555' })).body.data;
  assert.equal(small.lines.map((l: { amount: string }) => l.amount), ['4.4055555', '0.55', '0.00', '0.50', '0.10'], 'the minimum fee applies; the seller takes the sub-cent');
});

test('without the mandate, or for a draft of your own goods, no commission; another organiser’s pool is 404', async (ctx) => {
  const noMandate = await brokeredPool(ctx, { acceptCommissionMandate: false });
  const r = (await post(ctx, ctx.organiser, '/api/fees/commission', { poolId: noMandate, amount: '100' })).body.data;
  assert.equal(r.lines.map((l: { kind: string }) => l.kind), ['SELLER_PAYOUT', 'PLATFORM_FEE', 'VAT_ON_PLATFORM_FEE']);
  assert.match(r.commission.rule, /COMMISSION mandate/);

  const draft = await post(ctx, ctx.organiser, '/api/fees/commission', { draft: { sellerId: ctx.seller.id, organiserCommissionPercent: '5', acceptCommissionMandate: true }, amount: '200' });
  assert.is(draft.status, 200, draft.text);
  assert.equal(draft.body.data.lines.find((l: { kind: string }) => l.kind === 'ORGANISER_COMMISSION').amount, '10.00');
  const own = (await post(ctx, ctx.organiser, '/api/fees/commission', { draft: {}, amount: '200' })).body.data;
  assert.match(own.commission.rule, /not a brokered pool/);

  assert.is((await post(ctx, ctx.outsider, '/api/fees/commission', { poolId: noMandate, amount: '100' })).status, 404, 'another organiser’s pool');
  assert.is((await post(ctx, ctx.outsider, '/api/fees/commission', { draft: { organiserCommissionPercent: '5' }, amount: '1' })).body.code, 'business_account_required');
  const bad = await post(ctx, ctx.organiser, '/api/fees/commission', { amount: '1.12345678' });
  assert.is(bad.status, 400);
  assert.ok(bad.body.errors.amount);
});

test('the deposit quote equals what placing the reservation charges, tier included', async (ctx) => {
  const poolId = await brokeredPool(ctx);
  assert.is((await post(ctx, ctx.organiser, `/api/merchant/pools/${poolId}/publish`, {})).status, 200);
  const q = await post(ctx, ctx.buyer, `/api/pools/${poolId}/quote`, { lines: [{ unitId: 'pot', quantity: 3 }] });
  assert.is(q.status, 200, q.text);
  const quote = q.body.data;
  assert.equal(quote.lines, [{ unitId: 'pot', quantity: 3, unitPrice: '11.00', amount: '33.00' }]);
  assert.equal([quote.goods, quote.depositFee, quote.total], ['33.00', '0.00', '33.00']);
  assert.match(quote.quoteId, /^q1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  assert.ok(Date.parse(quote.validUntil) > Date.now());
  const again = (await post(ctx, ctx.buyer, `/api/pools/${poolId}/quote`, { lines: [{ unitId: 'pot', quantity: 3 }] })).body.data;
  assert.is(again.revision, quote.revision);
  assert.is(new Date(again.validUntil) >= new Date(quote.validUntil), true);

  const early = (await post(ctx, ctx.buyer, `/api/pools/${poolId}/quote`, { lines: [{ unitId: 'pot', quantity: 1 }] })).body.data;
  assert.is(early.lines[0].unitPrice, '12.50', 'one unit alone does not reach the tier');
  const reserve = (who: { token: string }, body: Record<string, unknown>) =>
    ctx.api.call('POST', `/api/pools/${poolId}/reservations`, { token: who.token, tenant: ctx.tenant, body, headers: { 'Idempotency-Key': randomUUID() } });
  const [head, payload, mac] = quote.quoteId.split('.');
  const forged = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  forged.lines[0].unitPrice = '1.00';
  forged.amount = '3.00';
  const tampered = await reserve(ctx.buyer, { lines: [{ unitId: 'pot', quantity: 3 }], quoteId: `${head}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}` });
  assert.is(tampered.status, 400, 'a quote whose prices were altered is refused');
  assert.is(tampered.body.code, 'invalid_quote');
  assert.ok(tampered.body.errors.quoteId);
  const stolen = await reserve(ctx.outsider, { lines: [{ unitId: 'pot', quantity: 3 }], quoteId: quote.quoteId });
  assert.is(stolen.status, 400, 'another buyer’s quote is refused');
  const otherLines = await reserve(ctx.buyer, { lines: [{ unitId: 'pot', quantity: 2 }], quoteId: quote.quoteId });
  assert.is(otherLines.status, 400);
  assert.is(otherLines.body.code, 'quote_mismatch');

  const placed = await reserve(ctx.buyer, { lines: [{ unitId: 'pot', quantity: 3 }], quoteId: quote.quoteId });
  assert.is(placed.status, 201, placed.text);
  assert.is(placed.body.data.amount, quote.total, 'the reservation charges the quoted total');
  assert.equal(placed.body.data.lines.map((l: { unitId: string; quantity: number; unitPrice: string }) => [l.unitId, l.quantity, l.unitPrice]), [['pot', 3, '11.00']]);

  const after = (await post(ctx, ctx.buyer, `/api/pools/${poolId}/quote`, { lines: [{ unitId: 'pot', quantity: 1 }] })).body.data;
  assert.is(after.lines[0].unitPrice, '11.00', 'the tier reached by the units held now');
  const moved = await reserve(ctx.buyer, { lines: [{ unitId: 'pot', quantity: 1 }], quoteId: early.quoteId });
  assert.is(moved.status, 409, 'the price moved since the early quote: the reservation is refused, not charged another amount');
  assert.is(moved.body.code, 'quote_changed');
  assert.ok(moved.body.errors['lines.0.unitPrice']);
  assert.is.not(after.revision, quote.revision);
  assert.is((await post(ctx, ctx.organiser, `/api/pools/${poolId}/quote`, { lines: [{ unitId: 'pot', quantity: 1 }] })).status, 403, 'an organiser does not reserve in their own pool');
  assert.is((await post(ctx, ctx.buyer, `/api/pools/${poolId}/quote`, { lines: [{ unitId: 'nope', quantity: 1 }] })).status, 400);
  assert.is((await post(ctx, ctx.buyer, `/api/pools/${poolId}/quote`, { lines: [{ unitId: 'pot', quantity: 1000 }] })).status, 409);
  assert.is((await post(ctx, ctx.buyer, `/api/pools/${randomUUID()}/quote`, { lines: [{ unitId: 'pot', quantity: 1 }] })).status, 404);
});

test.run();
