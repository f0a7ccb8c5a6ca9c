import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type ApiResponse, type TestApi, type TestUser } from './harness';
import { signXdr } from './wallet';

/**
 * The reads of reservations over HTTP, fed by the reservations projection: the buyer's orders dashboard, one order,
 * the organiser's dashboard, GroupBuy.members and myReservations, /api/auth/me spending. Every read names the
 * command's X-Event-Position (read your own write).
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  organiser: TestUser;
}

const test = suite<Ctx>('reservation reads: orders, organiser dashboard, members, spending');

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org Anne' });
});
test.after(async (ctx) => ctx.api.stop());

let position = '';
const track = <T>(res: ApiResponse<T>): ApiResponse<T> => {
  const p = res.headers.get('x-event-position');
  if (p) position = p;
  return res;
};
const as = (ctx: Ctx, user: TestUser | null) => ({
  post: async (path: string, body: unknown = {}, headers: Record<string, string> = {}) =>
    track(await ctx.api.call('POST', path, { token: user?.token, tenant: ctx.tenant, body, headers: { 'Idempotency-Key': randomUUID(), ...headers } })),
  get: (path: string) => ctx.api.call('GET', path, { token: user?.token, tenant: ctx.tenant, headers: position ? { 'X-Min-Position': position } : {} }),
});

const openPool = async (ctx: Ctx, body: Record<string, unknown>) => {
  const created = await as(ctx, ctx.organiser).post('/api/pools', body);
  assert.is(created.status, 201, created.text);
  const published = await as(ctx, ctx.organiser).post(`/api/pools/${created.body.data.id}/publish`);
  assert.is(published.status, 200, published.text);
  return created.body.data.id as string;
};

const reserve = async (ctx: Ctx, user: TestUser, poolId: string, body: unknown) => {
  const res = await as(ctx, user).post(`/api/pools/${poolId}/reservations`, body);
  assert.is(res.status, 201, res.text);
  return res.body.data as { id: string };
};

const reserveAndPay = async (ctx: Ctx, user: TestUser, poolId: string, body: unknown) => {
  const r = await reserve(ctx, user, poolId, body);
  const t = await as(ctx, user).get(`/api/pools/${poolId}/terms`);
  const signed = await as(ctx, user).post(`/api/pools/${poolId}/reservations/${r.id}/sign`, { acceptTerms: true, termsVersion: t.body.data.version, termsHash: t.body.data.hash });
  assert.is(signed.status, 200, signed.text);
  const paid = await as(ctx, user).post(`/api/pools/${poolId}/reservations/${r.id}/pay`, { signedXdr: signXdr(user.wallet!, signed.body.data.payment.xdr).toXDR() });
  assert.is(paid.status, 200, paid.text);
  assert.is(paid.body.data.reservation.status, 'PAID', paid.text);
  return { id: r.id, txHash: signed.body.data.payment.hash as string };
};

test('orders, one order, members, myReservations, organiser dashboard and spending follow reserve, pay and cancel', async (ctx) => {
  const poolId = await openPool(ctx, {
    type: 'GROUPS',
    title: 'Fromages du Jura',
    config: { units: [{ id: 'comte', label: 'Comté 1 kg', price: '18.50', quantity: 10 }], relais: [{ id: 'r1', name: 'Fromagerie', city: 'Lyon' }] },
  });
  const fundingId = await openPool(ctx, { type: 'FUNDING', title: 'Four à pain', targetAmount: '100.00', config: { pledge: { min: '5', max: '200' } } });
  await ctx.api.list(ctx.organiser, fundingId); // a PRIVATE FUNDING pool is read, and so pledged in, by its organiser only
  const bea = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Bea' });
  const cy = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Cy' });
  const dan = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Dan' });

  const beaPaid = await reserveAndPay(ctx, bea, poolId, { lines: [{ unitId: 'comte', quantity: 2 }], relaisId: 'r1' });
  const beaPledge = await reserveAndPay(ctx, bea, fundingId, { pledge: '25.00' });
  const cyHeld = await reserve(ctx, cy, poolId, { lines: [{ unitId: 'comte', quantity: 3 }], relaisId: 'r1' });
  const danGone = await reserve(ctx, dan, poolId, { lines: [{ unitId: 'comte', quantity: 1 }], relaisId: 'r1' });
  const cancelled = await as(ctx, dan).post(`/api/pools/${poolId}/reservations/${danGone.id}/cancel`);
  assert.is(cancelled.status, 200, cancelled.text);

  // The buyer's orders: newest first, with the pool and the pick-up point, payment proof and actions.
  const orders = await as(ctx, bea).get('/api/me/reservations?page=1&limit=10');
  assert.is(orders.status, 200, orders.text);
  assert.equal(orders.body.data.items.map((o: { id: string }) => o.id), [beaPledge.id, beaPaid.id]);
  assert.is(orders.body.data.pagination.total, 2);
  const [pledge, groups] = orders.body.data.items;
  assert.equal(groups.pool, { id: poolId, title: 'Fromages du Jura', type: 'GROUPS', status: 'OPEN', deadline: null });
  assert.equal(groups.relais, { id: 'r1', name: 'Fromagerie', city: 'Lyon' });
  assert.is(groups.status, 'PAID');
  assert.is(groups.amount, '37.00');
  assert.is(groups.payment.txHash, beaPaid.txHash);
  assert.is(pledge.relais, null);
  assert.is(pledge.pledge, '25.00');
  const paged = await as(ctx, bea).get('/api/me/reservations?page=2&limit=1');
  assert.equal(paged.body.data.items.map((o: { id: string }) => o.id), [beaPaid.id]);

  // One order: the buyer's own, 404 for anyone else.
  const one = await as(ctx, bea).get(`/api/me/reservations/${beaPaid.id}`);
  assert.is(one.status, 200, one.text);
  assert.is(one.body.data.payment.txHash, beaPaid.txHash);
  assert.is((await as(ctx, cy).get(`/api/me/reservations/${beaPaid.id}`)).status, 404);
  assert.is((await as(ctx, bea).get(`/api/me/reservations/${randomUUID()}`)).status, 404);
  assert.is((await as(ctx, null).get('/api/me/reservations')).status, 401);

  // GroupBuy: the organiser and the buyers holding units (PAID or live PENDING), not the one who cancelled.
  const seenByCy = await as(ctx, cy).get(`/api/pools/${poolId}`);
  assert.is(seenByCy.status, 200, seenByCy.text);
  assert.equal(
    seenByCy.body.data.members.map((m: { displayName: string; role: string; userId?: string }) => [m.displayName, m.role, m.userId ?? null]),
    [
      ['Org Anne', 'organiser', null],
      ['Bea', 'member', null],
      ['Cy', 'member', cy.id],
    ],
  );
  assert.equal(seenByCy.body.data.myReservations.map((r: { id: string; status: string }) => [r.id, r.status]), [[cyHeld.id, 'PENDING']]);
  const seenByDan = await as(ctx, dan).get(`/api/pools/${poolId}`);
  assert.equal(seenByDan.body.data.myReservations.map((r: { status: string }) => r.status), ['CANCELLED']);
  const seenByOwner = await as(ctx, ctx.organiser).get(`/api/pools/${poolId}`);
  assert.equal(seenByOwner.body.data.members.map((m: { userId: string }) => m.userId), [ctx.organiser.id, bea.id, cy.id]);
  const anonymous = await as(ctx, null).get(`/api/pools/${poolId}`);
  assert.equal([anonymous.body.data.members, anonymous.body.data.myReservations], [[], []]);
  const joined = await as(ctx, cy).get('/api/pools');
  assert.ok(joined.body.data.items.some((p: { id: string }) => p.id === poolId), 'a pool I hold units in is one I joined');

  // The organiser's dashboard: organisers only; fill rate, units and amounts held and paid; totals.
  assert.is((await as(ctx, bea).get('/api/organiser/dashboard')).status, 403);
  const dash = await as(ctx, ctx.organiser).get('/api/organiser/dashboard');
  assert.is(dash.status, 200, dash.text);
  const line = dash.body.data.pools.find((p: { poolId: string }) => p.poolId === poolId);
  assert.equal(
    [line.stock, line.unitsHeld, line.unitsPaid, line.fillRate, line.amountHeld, line.amountPaid, line.reservations],
    [10, 3, 2, '0.5000', '55.50', '37.00', { PENDING: 1, PAID: 1, EXPIRED: 0, CANCELLED: 1 }],
  );
  assert.equal(line.pendingActions, ['list']);
  const funding = dash.body.data.pools.find((p: { poolId: string }) => p.poolId === fundingId);
  assert.equal([funding.goal, funding.fillRate, funding.amountPaid], ['100.00', '0.2500', '25.00']);
  assert.equal([dash.body.data.totals.unitsPaid, dash.body.data.totals.amountPaid, dash.body.data.totals.amountHeld], [2, '62.00', '55.50']);

  // Spending from real payments.
  const me = await as(ctx, bea).get('/api/auth/me');
  assert.equal(me.body.data.spending, { currency: 'EUR', committed: '0.00', escrowed: '62.00', released: '0.00' });
  const cyMe = await as(ctx, cy).get('/api/auth/me');
  assert.equal(cyMe.body.data.spending, { currency: 'EUR', committed: '55.50', escrowed: '0.00', released: '0.00' });
});

test.run();
