import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EscrowLedger } from '@cagnotte/infra';
import { parseAmount, formatAmount } from '@cagnotte/domain';
import { startApi, type TestApi, type TestUser } from './harness';
import { signXdr } from './wallet';

/**
 * No oversell under concurrency: 200 buyers race for 50 units through two API instances (two command queues, so
 * the pool's stream also sees optimistic-concurrency conflicts between them). Exactly 50 are held, every other
 * buyer gets a 409 that says nothing is left, and what the buyers then pay reconciles with the ledger.
 */
interface Ctx {
  a: TestApi;
  b: TestApi;
  tenant: string;
}

const test = suite<Ctx>('reservations under concurrency');

test.before(async (ctx) => {
  [ctx.a, ctx.b] = [await startApi(), await startApi()];
  ctx.tenant = (await ctx.a.tenant()).slug;
});
test.after(async (ctx) => {
  await ctx.a.stop();
  await ctx.b.stop();
});

const inBatches = async <T>(n: number, size: number, make: (i: number) => Promise<T>): Promise<T[]> => {
  const out: T[] = [];
  for (let i = 0; i < n; i += size) out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - i) }, (_, j) => make(i + j)))));
  return out;
};

test('200 buyers race for 50 units: exactly 50 held, 150 refused with 409, and the paid ones reconcile with the escrow on the ledger', async (ctx) => {
  const organiser = await ctx.a.user(ctx.tenant, { role: 'organiser' });
  const created = await ctx.a.call('POST', '/api/pools', { token: organiser.token, tenant: ctx.tenant, body: { type: 'GROUPS', title: 'Race', config: { units: [{ id: 'u', label: 'Unit', price: '2.50', quantity: 50 }] } } });
  assert.is(created.status, 201, created.text);
  const poolId = created.body.data.id as string;
  const published = await ctx.a.call('POST', `/api/pools/${poolId}/publish`, { token: organiser.token, tenant: ctx.tenant });
  assert.is(published.status, 200, published.text);

  // 40 of the buyers hold a wallet: those that win pay, so the ledger has something to agree with.
  const buyers: TestUser[] = await inBatches(200, 25, (i) => ctx.a.user(ctx.tenant, { wallet: i < 40, name: `Buyer ${i}` }));
  const results = await Promise.all(
    buyers.map((u, i) =>
      (i % 2 === 0 ? ctx.a : ctx.b).call('POST', `/api/pools/${poolId}/reservations`, {
        token: u.token,
        tenant: ctx.tenant,
        body: { lines: [{ unitId: 'u', quantity: 1 }] },
        headers: { 'Idempotency-Key': randomUUID() },
      }),
    ),
  );
  const statuses = results.map((r) => r.status);
  assert.is(statuses.filter((s) => s === 201).length, 50, `statuses: ${JSON.stringify(statuses.reduce<Record<number, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {}))}`);
  assert.is(statuses.filter((s) => s === 409).length, 150, `statuses: ${JSON.stringify(statuses.reduce<Record<number, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {}))}; first other: ${results.find((r) => r.status !== 201 && r.status !== 409)?.text ?? '-'}`);
  for (const r of results.filter((x) => x.status === 409)) {
    assert.is(r.body.code, 'insufficient_stock');
    assert.equal(r.body.errors, { 'lines.0.quantity': ['only 0 of u left'] });
  }

  // The winners that hold a wallet sign and pay; the escrow's deposits on the ledger are exactly what was paid.
  const escrow = new EscrowLedger(ctx.a.services.ledger);
  const winners = results.map((r, i) => ({ r, u: buyers[i]! })).filter(({ r, u }) => r.status === 201 && u.wallet);
  assert.ok(winners.length > 0, 'some wallet holders won');
  let paid = 0n;
  let escrowAccount = '';
  for (const { r, u } of winners) {
    const id = r.body.data.id as string;
    const t = (await ctx.a.call('GET', `/api/pools/${poolId}/terms`, { token: u.token, tenant: ctx.tenant })).body.data;
    const signed = await ctx.a.call('POST', `/api/pools/${poolId}/reservations/${id}/sign`, { token: u.token, tenant: ctx.tenant, body: { acceptTerms: true, termsVersion: t.version, termsHash: t.hash } });
    assert.is(signed.status, 200, signed.text);
    escrowAccount = signed.body.data.payment.escrowAccount;
    const payRes = await ctx.b.call('POST', `/api/pools/${poolId}/reservations/${id}/pay`, { token: u.token, tenant: ctx.tenant, body: { signedXdr: signXdr(u.wallet!, signed.body.data.payment.xdr).toXDR() } });
    assert.is(payRes.body.data?.paid, true, payRes.text);
    paid += parseAmount(payRes.body.data.reservation.amount);
  }
  const holdings = await escrow.holdings(escrowAccount);
  const onLedger = holdings.deposits.reduce((sum, d) => sum + parseAmount(d.amount), parseAmount(holdings.balance));
  assert.is(formatAmount(onLedger), formatAmount(paid));
  assert.is(holdings.deposits.length, winners.length);
});

test.run();
