import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setTenantFeeSchedule } from '@cagnotte/command-api';
import { startApi, type TestApi, type TestUser } from './harness';

/**
 * What one ledger payment can carry bounds every amount at the edge (int64 stroops: 922337203685.4775807 units), and
 * the HTTP kit treats every write alike: a body that does not parse or is too large, and a tenant that does not
 * exist, are refused whatever the route declares. Each refusal is a 4xx naming what to fix, decided before anything
 * is appended; none is a 500.
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  organiser: TestUser;
  buyer: TestUser;
}

const MAX = '922337203685.4775807';
const PAST_MAX = '922337203685.4775808';

const test = suite<Ctx>('ledger bounds, body parsing and tenants on every write');

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant({ whiteLabel: true })).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org Bound' });
  ctx.buyer = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Bob Bound' });
});
test.after(async (ctx) => ctx.api.stop());

const post = (ctx: Ctx, user: TestUser, path: string, body: unknown = {}, o: { tenant?: string; headers?: Record<string, string> } = {}) =>
  ctx.api.call('POST', path, { token: user.token, tenant: o.tenant ?? user.tenant, body, headers: { 'Idempotency-Key': randomUUID(), ...(o.headers ?? {}) } });

const openPool = async (ctx: Ctx, body: Record<string, unknown>, organiser = ctx.organiser) => {
  const created = await post(ctx, organiser, '/api/pools', body);
  assert.is(created.status, 201, created.text);
  const published = await post(ctx, organiser, `/api/pools/${created.body.data.id}/publish`);
  assert.is(published.status, 200, published.text);
  return created.body.data.id as string;
};

const funding = (extra: Record<string, unknown> = {}) => ({ type: 'FUNDING', title: 'Un four', targetAmount: '2500.00', ...extra });
const groups = (units: unknown[]) => ({ type: 'GROUPS', title: 'Des paniers', config: { units } });

/** A 400 in the envelope whose `errors` name `field`. */
const refusedOn = (res: { status: number; body: any; text: string }, field: string, what: string) => {
  assert.is(res.status, 400, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  assert.is(res.body.success, false, what);
  assert.ok(res.body.errors?.[field], `${what}: errors name ${field}: ${JSON.stringify(res.body.errors)}`);
};

const terms = async (ctx: Ctx, user: TestUser, poolId: string) => {
  const t = await ctx.api.call('GET', `/api/pools/${poolId}/terms`, { token: user.token, tenant: user.tenant });
  assert.is(t.status, 200, t.text);
  return { acceptTerms: true, termsVersion: t.body.data.version, termsHash: t.body.data.hash };
};

const reservationsOf = async (ctx: Ctx, poolId: string) => {
  const pool = await ctx.api.call('GET', `/api/pools/${poolId}`, { token: ctx.organiser.token, tenant: ctx.tenant });
  assert.is(pool.status, 200, pool.text);
  return pool.body.data;
};

test('FUNDING without pledge limits: a pledge past the int64 stroop bound is a 400 on pledge (reserve and quote); at the bound it reserves and signs', async (ctx) => {
  const poolId = await openPool(ctx, funding());
  refusedOn(await post(ctx, ctx.buyer, `/api/pools/${poolId}/reservations`, { pledge: PAST_MAX }), 'pledge', 'reserve past the bound');
  refusedOn(await post(ctx, ctx.buyer, `/api/pools/${poolId}/quote`, { amount: PAST_MAX }), 'amount', 'quote past the bound');
  refusedOn(await post(ctx, ctx.buyer, `/api/pools/${poolId}/reservations`, { pledge: '999999999999999.9999999' }), 'pledge', 'the widest decimal');

  const placed = await post(ctx, ctx.buyer, `/api/pools/${poolId}/reservations`, { pledge: MAX });
  assert.is(placed.status, 201, placed.text);
  assert.is(placed.body.data.amount, MAX);
  const signed = await post(ctx, ctx.buyer, `/api/pools/${poolId}/reservations/${placed.body.data.id}/sign`, await terms(ctx, ctx.buyer, poolId));
  assert.is(signed.status, 200, `the deposit of the largest amount is built: ${signed.text.slice(0, 300)}`);
  assert.is(signed.body.data.payment.amount, MAX);
});

test('GROUPS: price × quantity past the bound is a 400 on the line’s quantity; lines that sum past it a 400 on lines (reserve and quote)', async (ctx) => {
  const poolId = await openPool(ctx, groups([{ id: 'big', label: 'Big', price: '1000000' }, { id: 'half', label: 'Half', price: '500000' }, { id: 'half2', label: 'Half too', price: '500000' }]));
  refusedOn(await post(ctx, ctx.buyer, `/api/pools/${poolId}/reservations`, { lines: [{ unitId: 'big', quantity: 1_000_000 }] }), 'lines.0.quantity', 'one line past the bound');
  refusedOn(await post(ctx, ctx.buyer, `/api/pools/${poolId}/quote`, { lines: [{ unitId: 'big', quantity: 1_000_000 }] }), 'lines.0.quantity', 'its quote');
  const two = { lines: [{ unitId: 'half', quantity: 1_000_000 }, { unitId: 'half2', quantity: 1_000_000 }] };
  refusedOn(await post(ctx, ctx.buyer, `/api/pools/${poolId}/reservations`, two), 'lines', 'two lines, each within, together past');
  refusedOn(await post(ctx, ctx.buyer, `/api/pools/${poolId}/quote`, two), 'lines', 'their quote');
  assert.is((await reservationsOf(ctx, poolId)).members.length, 1, 'nothing was placed: the organiser alone');
});

test('a pool is created only with amounts one payment can carry: unit and tier prices, pledge bounds and target (create and update)', async (ctx) => {
  const create = (body: Record<string, unknown>) => post(ctx, ctx.organiser, '/api/pools', body);
  refusedOn(await create(groups([{ id: 'u', label: 'U', price: '999999999999999' }])), 'config.units.0.price', 'a unit price');
  refusedOn(await create(groups([{ id: 'u', label: 'U', price: '10', tiers: [{ minQuantity: 2, price: PAST_MAX }] }])), 'config.units.0.tiers.0.price', 'a tier price');
  refusedOn(await create(funding({ targetAmount: PAST_MAX })), 'targetAmount', 'a target');
  refusedOn(await create(funding({ config: { pledge: { max: PAST_MAX } } })), 'config.pledge.max', 'a pledge bound');
  // Stocked units whose stock, sold at their price, could never be paid out in one release.
  refusedOn(await create(groups([{ id: 'u', label: 'U', price: '1000000', quantity: 1_000_000 }])), 'config.units', 'a stock worth more than one payment');
  assert.is((await create(groups([{ id: 'u', label: 'U', price: MAX }]))).status, 201, 'the bound itself');

  const draft = await create(funding());
  assert.is(draft.status, 201, draft.text);
  const patch = await ctx.api.call('PATCH', `/api/pools/${draft.body.data.id}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { targetAmount: PAST_MAX } });
  refusedOn(patch, 'targetAmount', 'an update');
});

test('the escrow-deposit fee on top: goods within the bound whose deposit is past it are a 400 (reserve and quote), never a 500', async (ctx) => {
  const tenant = (await ctx.api.tenant({ whiteLabel: true })).slug;
  const meta = { actor: { kind: 'operator' as const, id: 'bounds-e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() };
  await setTenantFeeSchedule(ctx.api.services, ctx.api.services.config, tenant, (s) => ({ ...s, escrowDeposit: { percent: '1', fixed: '0.20', min: '0', cap: null } }), meta);
  const organiser = await ctx.api.user(tenant, { role: 'organiser', name: 'Org Fee' });
  const buyer = await ctx.api.user(tenant, { name: 'Fee Buyer' });
  const fundingId = await openPool(ctx, funding(), organiser);
  refusedOn(await post(ctx, buyer, `/api/pools/${fundingId}/reservations`, { pledge: MAX }), 'pledge', 'a pledge at the bound plus its fee');
  refusedOn(await post(ctx, buyer, `/api/pools/${fundingId}/quote`, { amount: MAX }), 'pledge', 'its quote');
  const groupsId = await openPool(ctx, groups([{ id: 'u', label: 'U', price: '922337' }]), organiser);
  // 922337 × 1 000 000 = 922 337 000 000: within the bound; + 1 % is not.
  refusedOn(await post(ctx, buyer, `/api/pools/${groupsId}/reservations`, { lines: [{ unitId: 'u', quantity: 1_000_000 }] }), 'lines', 'goods plus fee');
  const fine = await post(ctx, buyer, `/api/pools/${groupsId}/reservations`, { lines: [{ unitId: 'u', quantity: 1 }] });
  assert.is(fine.status, 201, fine.text);
});

test('a pool never holds more than one release can pay out: a reservation that would take its total past the bound is refused', async (ctx) => {
  const poolId = await openPool(ctx, funding());
  const half = '500000000000';
  const first = await post(ctx, ctx.buyer, `/api/pools/${poolId}/reservations`, { pledge: half });
  assert.is(first.status, 201, first.text);
  const other = await ctx.api.user(ctx.tenant, { name: 'Other' });
  const second = await post(ctx, other, `/api/pools/${poolId}/reservations`, { pledge: half });
  refusedOn(second, 'pledge', 'a second half');
  assert.is(second.body.code, 'ledger_amount_exceeded');
});

test('every route parses and bounds its body: malformed JSON is a 400 malformed_json and an oversized body a 413, whether or not the route reads one', async (ctx) => {
  const poolId = await openPool(ctx, funding());
  const raw = (path: string, rawBody: string) => ctx.api.call('POST', path, { token: ctx.organiser.token, tenant: ctx.tenant, rawBody });
  const closed = await raw(`/api/pools/${poolId}/close`, '{"force": tru');
  assert.is(closed.status, 400, closed.text);
  assert.is(closed.body.code, 'malformed_json');
  assert.is((await reservationsOf(ctx, poolId)).status, 'OPEN', 'the pool is not closed');
  const recovery = await raw(`/api/pools/${poolId}/escrow/recovery`, '{bad');
  assert.is(recovery.status, 400, recovery.text);
  assert.is(recovery.body.code, 'malformed_json');
  const big = await raw(`/api/pools/${poolId}/escrow/recovery`, `{"a":"${'x'.repeat(5 * 1024 * 1024)}"}`);
  assert.is(big.status, 413, big.text.slice(0, 300));
  assert.is(big.body.code, 'payload_too_large');
  const publish = await raw(`/api/pools/${randomUUID()}/publish`, '[');
  assert.is(publish.body.code, 'malformed_json', publish.text);
  // A well-formed body on a route that reads none is still fine.
  assert.is((await raw(`/api/pools/${poolId}/escrow/recovery`, '{}')).status, 200);
});

test('an unknown X-Service-Tenant is a 404 tenant_not_found on every signed-in write, and nothing is written', async (ctx) => {
  const poolId = await openPool(ctx, funding());
  const placed = await post(ctx, ctx.buyer, `/api/pools/${poolId}/reservations`, { pledge: '10' });
  assert.is(placed.status, 201, placed.text);
  const reservationId = placed.body.data.id as string;
  const nope = { tenant: 'no-such-tenant' };
  const shots: Array<[string, TestUser, string, unknown]> = [
    ['reserve', ctx.buyer, `/api/pools/${poolId}/reservations`, { pledge: '10' }],
    ['sign', ctx.buyer, `/api/pools/${poolId}/reservations/${reservationId}/sign`, await terms(ctx, ctx.buyer, poolId)],
    ['pay', ctx.buyer, `/api/pools/${poolId}/reservations/${reservationId}/pay`, { txHash: 'ab'.repeat(32) }],
    ['cancel', ctx.buyer, `/api/pools/${poolId}/reservations/${reservationId}/cancel`, {}],
    ['quote', ctx.buyer, `/api/pools/${poolId}/quote`, { amount: '10' }],
    ['commission', ctx.organiser, '/api/fees/commission', { poolId, amount: '10' }],
    ['delivered', ctx.organiser, `/api/pools/${poolId}/delivered`, {}],
    ['recovery', ctx.organiser, `/api/pools/${poolId}/escrow/recovery`, {}],
    ['close', ctx.organiser, `/api/pools/${poolId}/close`, {}],
    ['create', ctx.organiser, '/api/pools', funding()],
  ];
  for (const [what, user, path, body] of shots) {
    const res = await post(ctx, user, path, body, nope);
    assert.is(res.status, 404, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
    assert.is(res.body.code, 'tenant_not_found', what);
  }
  const patch = await ctx.api.call('PATCH', `/api/pools/${poolId}`, { token: ctx.organiser.token, tenant: 'no-such-tenant', body: { country: 'BE' } });
  assert.is(patch.body.code, 'tenant_not_found', patch.text);
  const pool = await reservationsOf(ctx, poolId);
  assert.is(pool.status, 'OPEN');
  assert.is(pool.members.length, 2, 'the organiser and the one buyer: no second reservation');
});

test('a signed-in write naming another tenant sees that tenant, as reads do: the pool of one’s own tenant is not found there', async (ctx) => {
  const poolId = await openPool(ctx, funding());
  const other = (await ctx.api.tenant({ whiteLabel: true })).slug;
  const read = await ctx.api.call('GET', `/api/pools/${poolId}`, { token: ctx.buyer.token, tenant: other });
  assert.is(read.status, 404, read.text);
  const reserve = await post(ctx, ctx.buyer, `/api/pools/${poolId}/reservations`, { pledge: '10' }, { tenant: other });
  assert.is(reserve.status, 404, reserve.text);
  assert.is(reserve.body.code, read.body.code);
  const quote = await post(ctx, ctx.buyer, `/api/pools/${poolId}/quote`, { amount: '10' }, { tenant: other });
  assert.is(quote.status, 404, quote.text);
});

test.run();
