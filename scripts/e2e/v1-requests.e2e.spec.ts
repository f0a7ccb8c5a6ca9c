import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BASE_FEE, Memo, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { expirePaymentRequest, invoicingJobDeps, startInvoicingJobs, startRequestJobs } from '@cagnotte/command-api';
import { describeValidation, validateCii } from '@cagnotte/infra/src/invoicing/validate.testing';
import { eventually, startApi, type TestApi, type TestUser } from './harness';
import { fundedWallet, signXdr, type Wallet } from './wallet';

/**
 * /v1/requests through HTTP, on the sandbox network: a payee (a business organiser with a linked wallet) asks to be
 * paid; a payer's own wallet signs the payment the service built with the real SDK and submits it to the sandbox
 * Horizon; the service verifies it on the ledger. Paid in full → paid, and the payee's Factur-X invoice passes the EN
 * 16931 validator; paid short → still open with what remains; past due → expired (the job run at its time), and a
 * payment after is recorded late; another tenant's request is a 404; the events are in the feed.
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  payee: TestUser;
  /** The payee's test-mode API key: every /v1 call below goes through it. */
  key: string;
  payer: Wallet;
  stopJobs: () => Promise<void>;
}

const test = suite<Ctx>('e2e: /v1/requests (payment requests)');

test.before(async (ctx) => {
  ctx.api = await startApi({ STELLAR_NETWORK_PASSPHRASE: `Cagnotte requests e2e ${randomUUID()}` });
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.payee = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Studio' });
  const seller = await post(ctx, ctx.payee, '/api/me/become-seller', { companyName: 'Studio Graphique SAS', siret: '12345678200010' });
  assert.is(seller.status, 200, seller.text);
  ctx.key = (await ctx.api.apiKey(ctx.payee, { mode: 'test' })).secret;
  ctx.payer = await fundedWallet(ctx.api.url, ctx.api.services);
  ctx.stopJobs = startInvoicingJobs(invoicingJobDeps(ctx.api.services));
});
test.after(async (ctx) => {
  await ctx.stopJobs?.();
  await ctx.api.stop();
});

/** `as`: a session (TestUser, for /api) or an API key secret (for /v1, in the payee's tenant unless `tenant`). */
type Caller = TestUser | string;
const credentials = (ctx: Ctx, as: Caller) => (typeof as === 'string' ? { token: as, tenant: ctx.tenant } : { token: as.token, tenant: as.tenant });
const post = (ctx: Ctx, as: Caller, path: string, body: unknown = {}) => ctx.api.call('POST', path, { ...credentials(ctx, as), body, headers: { 'Idempotency-Key': randomUUID() } });
const get = (ctx: Ctx, as: Caller, path: string) => ctx.api.call('GET', path, credentials(ctx, as));

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

// 2 × 45.00 at 20 % and 1 × 12.50 at 5.5 %: 102.50 net + 18.00 + 0.69 (0.6875 rounded half-up) = 121.19.
const invoiceBody = (over: Record<string, unknown> = {}) => ({
  lineItems: [
    { description: 'Logo design (hours)', quantity: 2, unitAmount: '45.00', vatCategory: 'S', vatRate: '20' },
    { description: 'Printed brand book', quantity: 1, unitAmount: '12.50', vatCategory: 'S', vatRate: '5.5' },
  ],
  currency: 'EUR',
  dueAt: inAnHour(),
  customer: { name: 'Boulangerie Martin SARL', email: 'compta@martin.example', address: { line1: '3 rue du Four', city: 'Lyon', postcode: '69001' }, country: 'FR' },
  description: 'Brand identity, March',
  metadata: { order: 'A-42' },
  ...over,
});

/** The payer signs and submits a payment to the sandbox Horizon: the service's XDR (`amount` absent) or one they build themselves. */
const pay = async (ctx: Ctx, request: { id: string; payment: { destination: string; memo: { value: string } } }, amount?: string): Promise<string> => {
  let xdr: string;
  if (amount === undefined) {
    const built = await post(ctx, ctx.key, `/v1/requests/${request.id}/payment`, { payer: ctx.payer.keypair.publicKey() });
    assert.is(built.status, 200, built.text);
    xdr = built.body.data.xdr;
  } else {
    const account = await ctx.payer.horizon.loadAccount(ctx.payer.keypair.publicKey());
    xdr = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: ctx.payer.passphrase })
      .addOperation(Operation.payment({ destination: request.payment.destination, asset: ctx.api.services.ledger.asset, amount }))
      .addMemo(Memo.hash(request.payment.memo.value))
      .setTimeout(300)
      .build()
      .toXDR();
  }
  const signed = signXdr(ctx.payer, xdr);
  const submitted = await ctx.payer.horizon.submitTransaction(signed);
  return submitted.hash;
};

test('paid in full: open → the payer signs the built payment and submits it → paid, and the invoice passes the EN 16931 validator', async (ctx) => {
  const body = invoiceBody();
  const idempotencyKey = randomUUID();
  const created = await ctx.api.call('POST', '/v1/requests', { token: ctx.key, tenant: ctx.tenant, body, headers: { 'Idempotency-Key': idempotencyKey } });
  assert.is(created.status, 201, created.text);
  const r = created.body.data;
  assert.match(r.id, /^req_[0-9a-f]{32}$/);
  // The same Idempotency-Key and body: the same request, replayed.
  const replay = await ctx.api.call('POST', '/v1/requests', { token: ctx.key, tenant: ctx.tenant, body, headers: { 'Idempotency-Key': idempotencyKey } });
  assert.equal([replay.status, replay.body.data.id, replay.headers.get('idempotent-replayed')], [201, r.id, 'true']);
  assert.equal([r.object, r.status, r.livemode, r.currency], ['payment_request', 'open', false, 'EUR']);
  assert.equal([r.subtotal, r.tax, r.amountDue, r.amountPaid, r.amountRemaining], ['102.50', '18.69', '121.19', '0.00', '121.19']);
  assert.is(r.url, `/pay/${r.id}`);
  assert.is(r.payee, `acct_${ctx.payee.id.replace(/-/g, '')}`);
  assert.is(r.payment.destination, ctx.payee.wallet!.keypair.publicKey());

  // The public page: what a payer needs, nothing of the payee's books.
  const page = await ctx.api.call('GET', `/v1/requests/${r.id}/public`, { tenant: ctx.tenant });
  assert.is(page.status, 200, page.text);
  assert.equal([page.body.data.payeeName, page.body.data.amountDue, page.body.data.status], ['Studio Graphique SAS', '121.19', 'open']);
  assert.not.ok('customer' in page.body.data);
  assert.not.ok('metadata' in page.body.data);

  const txHash = await pay(ctx, r);
  const recorded = await post(ctx, ctx.key, `/v1/requests/${r.id}/payments`, { txHash });
  assert.is(recorded.status, 200, recorded.text);
  assert.is(recorded.body.data.recorded, true);
  assert.equal([recorded.body.data.request.status, recorded.body.data.request.amountPaid, recorded.body.data.request.amountOverpaid], ['paid', '121.19', '0.00']);
  // The same transaction again is recorded once.
  const again = await post(ctx, ctx.key, `/v1/requests/${r.id}/payments`, { txHash });
  assert.equal([again.status, again.body.data.idempotent, again.body.data.request.payments.length], [200, true, 1]);

  const read = await get(ctx, ctx.key, `/v1/requests/${r.id}`);
  assert.equal([read.status, read.body.data.status, read.body.data.paidAt !== null], [200, 'paid', true]);

  const xml = await eventually(async () => {
    const res = await get(ctx, ctx.key, `/v1/requests/${r.id}/invoice?format=xml`);
    return res.status === 200 ? res.text : null;
    // The invoice is a job queued by a projection: on a full run of a loaded machine it has taken longer than 15 s.
  }, 'the request invoice', 60_000);
  assert.match(xml, '<ram:GrandTotalAmount>121.19</ram:GrandTotalAmount>');
  assert.match(xml, `<ram:PaymentReference>${txHash}</ram:PaymentReference>`);
  const validation = await validateCii(xml);
  assert.is(validation.fatal.length, 0, describeValidation(validation));
  const pdf = await get(ctx, ctx.key, `/v1/requests/${r.id}/invoice`);
  assert.equal([pdf.status, pdf.headers.get('content-type')], [200, 'application/pdf']);
  assert.match(pdf.headers.get('content-disposition') ?? '', /^attachment; filename="R-\d{4}-000001\.pdf"$/);

  // The payee reads its request's events and its invoice's in the feed.
  const feed = await eventually(async () => {
    const res = await get(ctx, ctx.key, '/v1/events?types=request.*,invoice.issued&limit=100');
    const mine = (res.body.data?.items ?? []).filter((e: { subject: string; data: { recipient?: { id: string } } }) => e.subject === r.id || e.data.recipient?.id === r.id.slice(4).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'));
    return mine.length === 4 ? mine : null;
  }, 'the paid request’s events and its invoice in the feed');
  assert.equal(feed.map((e: { type: string }) => e.type), ['request.created', 'request.payment_received', 'request.paid', 'invoice.issued']);

  // A paid request cannot be voided.
  const voided = await post(ctx, ctx.key, `/v1/requests/${r.id}/void`);
  assert.equal([voided.status, voided.body.code], [400, 'request_not_open']);
});

test('a payer named on creation (an account of the tenant): the answer carries their unsigned payment; they sign it and it pays', async (ctx) => {
  const buyer = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Bea' });
  const payer = `acct_${buyer.id.replace(/-/g, '')}`;
  // A payment link: one line, no customer (the invoice names the paying ledger account).
  const created = await post(ctx, ctx.key, '/v1/requests', invoiceBody({ payer, customer: undefined, lineItems: [{ description: 'Workshop seat', quantity: 1, unitAmount: '20', vatCategory: 'S', vatRate: '20' }] }));
  assert.is(created.status, 201, created.text);
  const r = created.body.data;
  assert.equal([r.amountDue, r.paymentXdr.amount], ['24.00', '24.00']);
  const signed = signXdr(buyer.wallet!, r.paymentXdr.xdr);
  const { hash } = await buyer.wallet!.horizon.submitTransaction(signed);
  const recorded = await post(ctx, ctx.key, `/v1/requests/${r.id}/payments`, { txHash: hash });
  assert.equal([recorded.status, recorded.body.data.request.status, recorded.body.data.request.payments[0].from], [200, 'paid', buyer.wallet!.keypair.publicKey()]);
  const xml = await eventually(async () => {
    const res = await get(ctx, ctx.key, `/v1/requests/${r.id}/invoice?format=xml`);
    return res.status === 200 ? res.text : null;
  }, 'the payment link’s invoice');
  assert.match(xml, `Ledger account ${buyer.wallet!.keypair.publicKey()}`);
  const validation = await validateCii(xml);
  assert.is(validation.fatal.length, 0, describeValidation(validation));
  // Without payer the answer has none; an account of another tenant is no payer here.
  assert.is((await post(ctx, ctx.key, '/v1/requests', invoiceBody())).body.data.paymentXdr, null);
  const other = await ctx.api.user((await ctx.api.tenant()).slug, { wallet: true });
  const refused = await post(ctx, ctx.key, '/v1/requests', invoiceBody({ payer: `acct_${other.id.replace(/-/g, '')}` }));
  assert.equal([refused.status, refused.body.code], [404, 'account_not_found']);
});

test('under-paid: the request stays open with what remains; the rest completes it', async (ctx) => {
  const created = await post(ctx, ctx.key, '/v1/requests', invoiceBody());
  const r = created.body.data;
  const first = await post(ctx, ctx.key, `/v1/requests/${r.id}/payments`, { txHash: await pay(ctx, r, '100.00') });
  assert.is(first.status, 200, first.text);
  const open = first.body.data.request;
  assert.equal([open.status, open.amountPaid, open.amountRemaining, open.underpaid], ['open', '100.00', '21.19', true]);
  // The payment built now asks for what remains.
  const built = await post(ctx, ctx.key, `/v1/requests/${r.id}/payment`, { payer: ctx.payer.keypair.publicKey() });
  assert.is(built.body.data.amount, '21.19');
  // The fallback: the payer hands the signed transaction over and the service submits it.
  const account = await ctx.payer.horizon.loadAccount(ctx.payer.keypair.publicKey());
  const unsigned = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: ctx.payer.passphrase })
    .addOperation(Operation.payment({ destination: r.payment.destination, asset: ctx.api.services.ledger.asset, amount: '25' }))
    .addMemo(Memo.hash(r.payment.memo.value))
    .setTimeout(300)
    .build();
  const second = await post(ctx, ctx.key, `/v1/requests/${r.id}/payments`, { signedXdr: signXdr(ctx.payer, unsigned.toXDR()).toXDR() });
  assert.is(second.status, 200, second.text);
  assert.equal([second.body.data.request.status, second.body.data.request.amountOverpaid, second.body.data.request.underpaid], ['paid', '3.81', false]);
  assert.is(second.body.data.txHash, Buffer.from(unsigned.hash()).toString('hex'));
});

test('a payment that is not this request’s (another memo) is refused and records nothing', async (ctx) => {
  const a = (await post(ctx, ctx.key, '/v1/requests', invoiceBody())).body.data;
  const b = (await post(ctx, ctx.key, '/v1/requests', invoiceBody())).body.data;
  const txHash = await pay(ctx, b, '1');
  const refused = await post(ctx, ctx.key, `/v1/requests/${a.id}/payments`, { txHash });
  assert.equal([refused.status, refused.body.code, refused.body.errors?.memo !== undefined], [400, 'payment_mismatch', true]);
  assert.is((await get(ctx, ctx.key, `/v1/requests/${a.id}`)).body.data.payments.length, 0);
});

test('expired: the job at dueAt expires the open request; a payment after is recorded late and pays nothing', async (ctx) => {
  const dueAt = new Date(Date.now() + 2000).toISOString();
  const r = (await post(ctx, ctx.key, '/v1/requests', invoiceBody({ dueAt }))).body.data;
  const uuid = r.id.slice(4).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
  // Its creation scheduled the expiry job on the request-expiry queue (no worker runs it in this spec: it is run below).
  await eventually(async () => {
    const counts = (await ctx.api.services.jobs.counts())['request-expiry'];
    return counts !== undefined && counts.delayed + counts.waiting > 0;
  }, 'the expiry job scheduled');
  // The job run early (the clock before dueAt) changes nothing; run at its time, it expires the request.
  assert.equal((await expirePaymentRequest(ctx.api.services, { requestId: uuid, tenantId: null }, new Date(Date.parse(dueAt) - 1000))).events, []);
  const expired = await expirePaymentRequest(ctx.api.services, { requestId: uuid, tenantId: null }, new Date(Date.parse(dueAt) + 1000));
  assert.equal(expired.events.map((e) => e.type), ['PaymentRequestExpired']);
  const read = await get(ctx, ctx.key, `/v1/requests/${r.id}`);
  assert.equal([read.body.data.status, read.body.data.expiredAt !== null], ['expired', true]);
  const late = await post(ctx, ctx.key, `/v1/requests/${r.id}/payments`, { txHash: await pay(ctx, r, '121.19') });
  assert.is(late.status, 200, late.text);
  const after = late.body.data.request;
  assert.equal([after.status, after.amountPaid, after.payments[0].late], ['expired', '0.00', true]);
  const built = await post(ctx, ctx.key, `/v1/requests/${r.id}/payment`, { payer: ctx.payer.keypair.publicKey() });
  assert.equal([built.status, built.body.code], [400, 'request_not_open']);
});

test('expired by the worker: the job scheduled at creation runs at dueAt on the request-expiry queue', async (ctx) => {
  const stop = startRequestJobs(ctx.api.services);
  try {
    const r = (await post(ctx, ctx.key, '/v1/requests', invoiceBody({ dueAt: new Date(Date.now() + 1500).toISOString() }))).body.data;
    assert.is(r.status, 'open');
    const expired = await eventually(async () => {
      const res = await get(ctx, ctx.key, `/v1/requests/${r.id}`);
      return res.body.data.status === 'expired' ? res.body.data : null;
    }, 'the request expired by its job', 20_000);
    assert.ok(Date.parse(expired.expiredAt) >= Date.parse(r.dueAt));
  } finally {
    await stop();
  }
});

test('void, list with status filter and cursors, another tenant’s request is a 404, the events are in the feed', async (ctx) => {
  const r = (await post(ctx, ctx.key, '/v1/requests', invoiceBody())).body.data;
  const voided = await post(ctx, ctx.key, `/v1/requests/${r.id}/void`);
  assert.equal([voided.status, voided.body.data.status], [200, 'void']);

  const voids = await get(ctx, ctx.key, '/v1/requests?status=void');
  assert.is(voids.status, 200, voids.text);
  assert.equal(voids.body.data.items.map((i: { id: string }) => i.id), [r.id]);
  const all = await get(ctx, ctx.key, '/v1/requests?limit=2');
  assert.equal([all.body.data.object, all.body.data.url, all.body.data.items.length, all.body.data.hasMore], ['list', '/v1/requests', 2, true]);
  assert.is(all.body.data.items[0].id, r.id, 'newest first');
  const next = await get(ctx, ctx.key, `/v1/requests?limit=2&startingAfter=${all.body.data.items[1].id}`);
  assert.not.ok(next.body.data.items.some((i: { id: string }) => all.body.data.items.some((j: { id: string }) => j.id === i.id)));
  const bad = await get(ctx, ctx.key, '/v1/requests?startingAfter=req_00000000000000000000000000000000');
  assert.is(bad.status, 400);

  const other = await ctx.api.tenant();
  const strangerUser = await ctx.api.user(other.slug, { role: 'organiser' });
  const strangerKey = (await ctx.api.apiKey(strangerUser, { mode: 'test' })).secret;
  const stranger = (method: string, path: string) => ctx.api.call(method, path, { token: strangerKey, tenant: other.slug, headers: { 'Idempotency-Key': randomUUID() } });
  const notFound = await stranger('GET', `/v1/requests/${r.id}`);
  assert.equal([notFound.status, notFound.body.code], [404, 'request_not_found']);
  assert.is((await stranger('POST', `/v1/requests/${r.id}/void`)).status, 404);
  assert.is((await ctx.api.call('GET', `/v1/requests/${r.id}/public`, { tenant: other.slug })).status, 404);
  assert.equal((await stranger('GET', '/v1/requests')).body.data.items, []);
  // The key of another tenant naming this one: 404 tenant_not_found.
  assert.is((await ctx.api.call('GET', `/v1/requests/${r.id}`, { token: strangerKey, tenant: ctx.tenant })).status, 404);

  // The payee's live key sees no test object (tenant verified for live keys); a read-only key cannot write.
  const live = (await ctx.api.apiKey(ctx.payee, { mode: 'live' })).secret;
  assert.is((await get(ctx, live, `/v1/requests/${r.id}`)).status, 404);
  assert.equal((await get(ctx, live, '/v1/requests')).body.data.items, []);
  const readOnly = (await ctx.api.apiKey(ctx.payee, { mode: 'test', scopes: ['requests:read'] })).secret;
  assert.is((await get(ctx, readOnly, `/v1/requests/${r.id}`)).status, 200);
  const refused = await post(ctx, readOnly, '/v1/requests', invoiceBody());
  assert.equal([refused.status, refused.body.code], [403, 'insufficient_scope']);
  const noKey = await ctx.api.call('POST', '/v1/requests', { token: ctx.key, tenant: ctx.tenant, body: invoiceBody(), idempotencyKey: false });
  assert.equal([noKey.status, noKey.body.code, noKey.body.param], [400, 'idempotency_key_required', 'Idempotency-Key']);

  const events = await eventually(async () => {
    const res = await get(ctx, ctx.key, `/v1/events?types=request.*&subject=${r.id}`);
    return res.body.data?.items.length === 2 ? res.body.data.items : null;
  }, 'the request events in the feed');
  assert.equal(events.map((e: { type: string }) => e.type), ['request.created', 'request.voided']);
  assert.equal([events[0].data.request, events[0].data.amountDue, events[1].data.status], [r.id, '121.19', 'void']);
  const strangerFeed = await stranger('GET', '/v1/events?types=request.*');
  assert.equal(strangerFeed.body.data.items, []);
  // The events of a test request are test events: the payee's live key reads none of them.
  const liveFeed = await get(ctx, live, `/v1/events?types=request.*&subject=${r.id}`);
  assert.equal([liveFeed.status, liveFeed.body.data.items], [200, []]);
});

test.run();
