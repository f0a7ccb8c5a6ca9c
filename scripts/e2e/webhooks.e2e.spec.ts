/**
 * Issue 20, Proof: webhooks delivered to a real receiver (an HTTP server of this spec on 127.0.0.1), driven through
 * HTTP the way a partner does: an organiser's endpoint receives every public event of a pool from publish to
 * settlement exactly once, in `sequence` order per subject, each verified with the npm `standardwebhooks` package and
 * equal to the feed's item; failures (500, 410, a hang, 429 with Retry-After) are retried or disable the endpoint as
 * the schedule says, and GET …/attempts shows them; per_subject holds a failing subject only, one event at a time;
 * re-enabling an endpoint a 410 disabled offers a recovery window that covers the gap; a secret rotated mid-stream signs beside the new one, and the
 * tenant's ed25519 key verifies v1a with node:crypto; recover re-delivers a window with the same webhook-ids; test
 * sends a webhook.test; another organiser's or tenant's events never arrive.
 *
 * The retry schedule and the timeout are shortened through the delivery side's config (WEBHOOK_RETRY_SCHEDULE_MS,
 * WEBHOOK_TIMEOUT_MS) so that no test waits minutes.
 */
import { createPublicKey, randomUUID, verify } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { grantAuditor, startWebhookDelivery, webhookDeliveryDeps } from '@cagnotte/command-api';
import { fundingPool, startApi, type ApiResponse, type TestApi, type TestUser } from './harness';
import { acknowledgedCounts, startReceiver, type Receiver, type ReceivedDelivery } from './webhook-receiver';
import { signXdr } from './wallet';

/** Retries 300 ms apart (the production schedule is 0, 5 s, 5 min, …), and a sender that gives up after 1 s. */
const RETRY_SCHEDULE_MS = [0, 300, 300, 300, 300];
const TIMEOUT_MS = 1000;

interface Ctx {
  api: TestApi;
  receiver: Receiver;
  tenant: { id: string; slug: string };
  other: { id: string; slug: string };
  organiser: TestUser;
  auditor: TestUser;
  stopDelivery: () => Promise<void>;
}

interface PublicEvent {
  id: string;
  type: string;
  createdAt: string;
  tenant: string;
  subject: string;
  sequence: number;
  apiVersion: string;
  data: Record<string, unknown>;
}

type Envelope = { success: boolean; data: any; code?: string; errors?: Record<string, string[]> };

const test = suite<Ctx>('e2e: webhooks delivered to a real receiver');
const meta = () => ({ actor: { kind: 'operator' as const, id: 'e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const waitFor = async (probe: () => Promise<boolean>, what: string, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
};

test.before(async (ctx) => {
  ctx.api = await startApi({ STELLAR_NETWORK_PASSPHRASE: `Cagnotte webhooks e2e ${randomUUID()}`, WEBHOOK_RETRY_SCHEDULE_MS: RETRY_SCHEDULE_MS, WEBHOOK_TIMEOUT_MS: TIMEOUT_MS });
  // The delivery (dispatcher, workers, sweeper) in this process, as `pnpm start` runs it; the embedded app's test and
  // recover routes queue its jobs.
  ctx.stopDelivery = startWebhookDelivery(webhookDeliveryDeps(ctx.api.services), { sweepEveryMs: 1000, sweepGraceMs: 3000 });
  ctx.receiver = await startReceiver();
  ctx.tenant = await ctx.api.tenant();
  ctx.other = await ctx.api.tenant();
  ctx.organiser = await ctx.api.user(ctx.tenant.slug, { role: 'organiser', name: 'Org Olga' });
  ctx.auditor = await ctx.api.user(ctx.tenant.slug, { name: 'Audrey' });
  const granted = await grantAuditor(ctx.api.services, { slug: ctx.tenant.slug, userId: ctx.auditor.id }, meta());
  await ctx.api.runner.catchUp(granted.position);
});

test.after(async (ctx) => {
  await ctx.stopDelivery?.();
  await ctx.receiver?.close();
  await ctx.api.stop();
});

const as = (ctx: Ctx, user: TestUser) => ({
  post: (path: string, body: unknown = {}): Promise<ApiResponse<Envelope>> =>
    ctx.api.call('POST', path, { token: user.token, tenant: user.tenant, body, headers: { 'Idempotency-Key': randomUUID() } }),
  patch: (path: string, body: unknown): Promise<ApiResponse<Envelope>> => ctx.api.call('PATCH', path, { token: user.token, tenant: user.tenant, body }),
  get: (path: string): Promise<ApiResponse<Envelope>> => ctx.api.call('GET', path, { token: user.token, tenant: user.tenant }),
});

/** Every item of the user's feed after `after` (paging to the end), and the cursor to read on from. */
const feedAfter = async (ctx: Ctx, user: TestUser, after: string | null): Promise<{ items: PublicEvent[]; cursor: string | null }> => {
  const items: PublicEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await as(ctx, user).get(`/v1/events?limit=500${cursor ? `&after=${cursor}` : ''}`);
    assert.is(page.status, 200, page.text);
    items.push(...page.body.data.items);
    const next = page.body.data.nextCursor as string | null;
    if (page.body.data.items.length === 0) return { items, cursor: next ?? cursor };
    cursor = next;
  }
};

const createEndpoint = async (ctx: Ctx, user: TestUser, path: string, body: Record<string, unknown> = {}) => {
  const res = await as(ctx, user).post('/v1/webhooks', { url: `${ctx.receiver.url}${path}`, enabledEvents: ['*'], ...body });
  assert.is(res.status, 201, res.text);
  return res.body.data as { id: string; secret: string; status: string };
};

/** Standard Webhooks verification with the npm library, as a partner's receiver does it (throws when it fails). */
const verifyWith = (secret: string, d: ReceivedDelivery) =>
  new Webhook(secret).verify(d.body, { 'webhook-id': d.id, 'webhook-timestamp': d.timestamp, 'webhook-signature': d.signature }) as PublicEvent;

const signaturesOf = (d: ReceivedDelivery, version: string) =>
  d.signature
    .split(' ')
    .map((s) => s.split(','))
    .filter(([v]) => v === version)
    .map(([, sig]) => sig!);

/** A fresh organiser of the tenant: each test's endpoint sees only its own events. */
const organiser = (ctx: Ctx, name: string, wallet = false) => ctx.api.user(ctx.tenant.slug, { role: 'organiser', wallet, name });

/** One public event for `user`: a draft pool (pool.created). */
const someEvent = async (ctx: Ctx, user: TestUser, title = `hook ${randomUUID().slice(0, 6)}`) => {
  const res = await as(ctx, user).post('/api/pools', fundingPool({ title }));
  assert.is(res.status, 201, res.text);
  return res.body.data.id as string;
};

const bodyOf = (d: ReceivedDelivery) => JSON.parse(d.body) as PublicEvent;

// ---- the pool's money path, as the escrow e2e drives it -------------------------------------------------------------

const cheese = () => ({
  type: 'GROUPS',
  title: 'Fromages du Jura',
  deadline: null,
  config: { units: [{ id: 'comte', label: 'Comté 1 kg', price: '18.50', quantity: 20, tiers: [{ minQuantity: 4, price: '16.00' }] }], release: { after: 'CLOSE' } },
});

/** Reserve, sign the terms, submit the deposit with the buyer's key, pay by hash: PAID. */
const buy = async (ctx: Ctx, poolId: string, quantity: number, name: string) => {
  const buyer = await ctx.api.user(ctx.tenant.slug, { wallet: true, name });
  const placed = await as(ctx, buyer).post(`/api/pools/${poolId}/reservations`, { lines: [{ unitId: 'comte', quantity }] });
  assert.is(placed.status, 201, placed.text);
  const t = (await as(ctx, buyer).get(`/api/pools/${poolId}/terms`)).body.data;
  const signed = await as(ctx, buyer).post(`/api/pools/${poolId}/reservations/${placed.body.data.id}/sign`, { acceptTerms: true, termsVersion: t.version, termsHash: t.hash });
  assert.is(signed.status, 200, signed.text);
  await buyer.wallet!.horizon.submitTransaction(signXdr(buyer.wallet!, signed.body.data.payment.xdr));
  const paid = await as(ctx, buyer).post(`/api/pools/${poolId}/reservations/${placed.body.data.id}/pay`, { txHash: signed.body.data.payment.hash });
  assert.is(paid.body.data.paid, true, paid.text);
  return placed.body.data.id as string;
};

/** Publish, two buyers pay, close, the organiser cosigns the settlement: SETTLED. */
const driveToSettlement = async (ctx: Ctx, owner: TestUser, poolId: string) => {
  assert.is((await as(ctx, owner).post(`/api/pools/${poolId}/publish`)).status, 200);
  const reservations = [await buy(ctx, poolId, 2, 'Ann'), await buy(ctx, poolId, 2, 'Ben')];
  const closed = await as(ctx, owner).post(`/api/pools/${poolId}/close`);
  assert.is(closed.status, 200, closed.text);
  const plan = await as(ctx, owner).post(`/api/pools/${poolId}/escrow/settlement`);
  assert.ok(plan.status === 201 || plan.status === 200, plan.text);
  const signed = plan.body.data.rounds.flatMap((r: { lock: { xdr: string }; release: { xdr: string } }) => [
    signXdr(owner.wallet!, r.lock.xdr).toXDR(),
    signXdr(owner.wallet!, r.release.xdr).toXDR(),
  ]);
  const done = await as(ctx, owner).post(`/api/pools/${poolId}/escrow/settlement/submit`, { settlementId: plan.body.data.settlementId, signedXdrs: signed });
  assert.is(done.body.data.status, 'SETTLED', done.text);
  return reservations;
};

// ---- a. the whole money path, exactly once, in order per subject -----------------------------------------------------

test('given an organiser’s endpoint (every event, per_subject), when a pool goes from publish to settlement, then every public event the feed holds for it arrives exactly once, in sequence order per subject, verified by standardwebhooks, its body the feed’s item', async (ctx) => {
  const owner = ctx.organiser;
  const poolId = (await as(ctx, owner).post('/api/pools', cheese())).body.data.id as string;
  const { cursor: head } = await feedAfter(ctx, owner, null);
  const endpoint = await createEndpoint(ctx, owner, '/a', { ordering: 'per_subject' });
  assert.match(endpoint.secret, /^whsec_/);

  const reservations = await driveToSettlement(ctx, owner, poolId);
  // The feed is the reference: once it shows pool.settled, everything the endpoint is owed is in it.
  let expected: PublicEvent[] = [];
  await waitFor(async () => {
    expected = (await feedAfter(ctx, owner, head)).items;
    return expected.some((e) => e.type === 'pool.settled' && e.subject === poolId);
  }, 'pool.settled in the feed');
  assert.equal(expected.filter((e) => e.data.poolId !== poolId && e.subject !== poolId).map((e) => e.type), [], 'the organiser’s feed holds this pool’s events only');
  const types = new Set(expected.map((e) => e.type));
  for (const t of ['pool.published', 'reservation.placed', 'reservation.paid', 'pool.closed', 'pool.settled']) assert.ok(types.has(t), `${t} in the feed (${[...types].join(', ')})`);
  assert.ok(expected.some((e) => reservations.includes(e.subject)), 'reservation events have the reservation as subject');

  await ctx.receiver.until(() => expected.every((e) => ctx.receiver.on('/a').some((d) => d.id === e.id)), `${expected.length} events on /a`, 60_000);
  await sleep(1500); // a duplicate would arrive now
  const received = ctx.receiver.on('/a');
  const counts = acknowledgedCounts(received);
  assert.equal([...counts.entries()].filter(([, n]) => n !== 1), [], 'each event acknowledged exactly once');
  assert.equal(received.length, expected.length, 'nothing but the feed’s events (and no retries: the receiver always said 200)');
  assert.equal(new Set(received.map((d) => d.id)), new Set(expected.map((e) => e.id)));

  const byId = new Map(expected.map((e) => [e.id, e]));
  for (const d of received) {
    const verified = verifyWith(endpoint.secret, d);
    assert.equal(bodyOf(d), byId.get(d.id), `the body of ${d.id} is the feed’s item`);
    assert.is(verified.id, d.id, 'webhook-id is the event id');
  }
  // Per subject: the order of arrival is the order of `sequence`.
  const bySubject = new Map<string, number[]>();
  for (const d of received) bySubject.set(bodyOf(d).subject, [...(bySubject.get(bodyOf(d).subject) ?? []), bodyOf(d).sequence]);
  for (const [subject, seqs] of bySubject) assert.equal(seqs, [...seqs].sort((x, y) => x - y), `arrival order of ${subject}`);
  console.log(`    /a: ${received.length} deliveries of ${expected.length} events over ${bySubject.size} subjects (${[...types].sort().join(', ')})`);
});


const attemptsOf = async (ctx: Ctx, user: TestUser, endpointId: string) => {
  const res = await as(ctx, user).get(`/v1/webhooks/${endpointId}/attempts?limit=100`);
  assert.is(res.status, 200, res.text);
  return res.body.data.items as Array<{ eventId: string; attempt: number; statusCode: number | null; latencyMs: number; error: string | null; responseExcerpt: string | null; attemptedAt: string; trigger: string }>;
};

// ---- b. failures ----------------------------------------------------------------------------------------------------

test('given a receiver that answers 500 then 200, when an event is delivered, then it is retried after the schedule’s wait with the same webhook-id, and the attempts show 500 then 200', async (ctx) => {
  const owner = await organiser(ctx, 'Five Hundred');
  const endpoint = await createEndpoint(ctx, owner, '/b500');
  ctx.receiver.answer('/b500', ({ arrival }) => (arrival === 1 ? { status: 500, body: 'boom' } : { status: 200 }));
  await someEvent(ctx, owner);
  await ctx.receiver.until(() => ctx.receiver.on('/b500').some((d) => d.arrival === 2), 'the retry on /b500');
  const [first, second] = ctx.receiver.on('/b500');
  assert.is(first!.id, second!.id, 'the same webhook-id');
  assert.is(first!.body, second!.body, 'the same body');
  assert.ok(second!.at - first!.at >= 250, `retried after the schedule (${second!.at - first!.at} ms)`);
  verifyWith(endpoint.secret, second!);
  await waitFor(async () => (await attemptsOf(ctx, owner, endpoint.id)).length === 2, 'two attempts recorded');
  const attempts = await attemptsOf(ctx, owner, endpoint.id);
  assert.equal(attempts.map((a) => [a.eventId, a.attempt, a.statusCode]), [[first!.id, 2, 200], [first!.id, 1, 500]], 'newest first');
  assert.is(attempts[1]!.responseExcerpt, 'boom');
  assert.is((await as(ctx, owner).get(`/v1/webhooks/${endpoint.id}`)).body.data.status, 'enabled');
});

test('given a receiver that answers 410 Gone, when an event is delivered, then the endpoint is disabled and nothing is retried', async (ctx) => {
  const owner = await organiser(ctx, 'Gone');
  const endpoint = await createEndpoint(ctx, owner, '/b410');
  ctx.receiver.answer('/b410', () => ({ status: 410 }));
  await someEvent(ctx, owner);
  await waitFor(async () => (await as(ctx, owner).get(`/v1/webhooks/${endpoint.id}`)).body.data.status === 'disabled', 'the endpoint disabled');
  const got = (await as(ctx, owner).get(`/v1/webhooks/${endpoint.id}`)).body.data;
  assert.is(got.disabledReason, 'gone');
  await someEvent(ctx, owner);
  await sleep(1200);
  assert.is(ctx.receiver.on('/b410').length, 1, 'one attempt, no retry, nothing more to a disabled endpoint');
  assert.equal((await attemptsOf(ctx, owner, endpoint.id)).map((a) => a.statusCode), [410]);
});

test('given an endpoint disabled by a 410, when its owner re-enables it, then the recovery it offers covers the gap: recovering that window delivers the event that got the 410 and those of the disabled time, nothing else', async (ctx) => {
  const owner = await organiser(ctx, 'Gone Again');
  const endpoint = await createEndpoint(ctx, owner, '/b410-back');
  let gone = false;
  ctx.receiver.answer('/b410-back', () => (gone ? { status: 200 } : ((gone = true), { status: 410 })));
  const before = await someEvent(ctx, owner);
  await waitFor(async () => (await as(ctx, owner).get(`/v1/webhooks/${endpoint.id}`)).body.data.status === 'disabled', 'the endpoint disabled');
  const during = await someEvent(ctx, owner);
  await waitFor(async () => (await feedAfter(ctx, owner, null)).items.some((e) => e.subject === during), 'the event of the disabled time in the feed');
  const enabled = await as(ctx, owner).patch(`/v1/webhooks/${endpoint.id}`, { status: 'enabled' });
  assert.is(enabled.status, 200, enabled.text);
  const recovery = enabled.body.data.recovery as { since: string; until: string } | undefined;
  assert.ok(recovery, `re-enabling an endpoint disabled by its receiver offers a recovery: ${enabled.text}`);
  const recovered = await as(ctx, owner).post(`/v1/webhooks/${endpoint.id}/recover`, recovery);
  assert.is(recovered.status, 202, recovered.text);
  await ctx.receiver.until(() => ctx.receiver.on('/b410-back').filter((d) => d.status === 200).length >= 1, 'a recovered delivery', 10_000);
  await sleep(1000);
  const acknowledged = ctx.receiver.on('/b410-back').filter((d) => d.status === 200).map((d) => bodyOf(d).subject);
  const offered = `offered ${JSON.stringify(recovery)}, scheduled ${recovered.body.data.scheduled}`;
  assert.equal({ gone: acknowledged.includes(before), disabledTime: acknowledged.includes(during) }, { gone: true, disabledTime: true }, `the gap: the event that got the 410 and the disabled time’s (${offered})`);
  assert.is(acknowledged.length, 2, `nothing else (${offered})`);
});

test('given a per_subject endpoint whose receiver fails the first attempt of every event of one subject, when two subjects change in turn, then that subject’s events go one at a time in sequence order, each after the previous one was acknowledged, and the other subject is not held', async (ctx) => {
  const owner = await organiser(ctx, 'Ordered');
  await createEndpoint(ctx, owner, '/order', { ordering: 'per_subject' });
  const slow = await someEvent(ctx, owner, 'slow');
  const fast = await someEvent(ctx, owner, 'fast');
  await ctx.receiver.until(() => ctx.receiver.on('/order').length === 2, 'both pool.created');
  ctx.receiver.answer('/order', ({ arrival, body }) => ((JSON.parse(body) as PublicEvent).subject === slow && arrival === 1 ? { status: 500 } : { status: 200 }));
  for (let i = 1; i <= 3; i++) {
    for (const poolId of [slow, fast]) assert.is((await as(ctx, owner).patch(`/api/pools/${poolId}`, { title: `${poolId === slow ? 'slow' : 'fast'} ${i}` })).status, 200);
  }
  await ctx.receiver.until(() => ctx.receiver.on('/order').filter((d) => d.status === 200).length === 2 + 6, 'the six updates acknowledged', 20_000);
  const updates = ctx.receiver.on('/order').slice(2);
  const of = (subject: string) => updates.filter((d) => bodyOf(d).subject === subject);
  const slowOnes = of(slow);
  assert.equal(slowOnes.map((d) => [bodyOf(d).sequence, d.status]), [...new Set(slowOnes.map((d) => bodyOf(d).sequence))].sort((a, b) => a - b).flatMap((q) => [[q, 500], [q, 200]]), 'each one failed once, then acknowledged, before the next was sent');
  assert.equal(of(fast).map((d) => d.status), [200, 200, 200]);
  assert.equal(of(fast).map((d) => bodyOf(d).sequence), [...of(fast).map((d) => bodyOf(d).sequence)].sort((a, b) => a - b));
  assert.ok(of(fast).at(-1)!.at < slowOnes.at(-1)!.at, 'the failing subject held only itself');
});

test('given a receiver that hangs, when an event is delivered, then the attempt is recorded as a timeout and retried', async (ctx) => {
  const owner = await organiser(ctx, 'Hang');
  const endpoint = await createEndpoint(ctx, owner, '/bhang');
  ctx.receiver.answer('/bhang', ({ arrival }) => (arrival === 1 ? { hang: true } : { status: 200 }));
  await someEvent(ctx, owner);
  await ctx.receiver.until(() => ctx.receiver.on('/bhang').some((d) => d.arrival === 2), 'the retry after the timeout');
  const [first, second] = ctx.receiver.on('/bhang');
  assert.ok(second!.at - first!.at >= TIMEOUT_MS, `the sender waited its timeout (${second!.at - first!.at} ms)`);
  await waitFor(async () => (await attemptsOf(ctx, owner, endpoint.id)).length === 2, 'two attempts recorded');
  const [ok, timedOut] = await attemptsOf(ctx, owner, endpoint.id);
  assert.equal([ok!.statusCode, timedOut!.statusCode], [200, null]);
  assert.match(timedOut!.error ?? '', /time/i);
  assert.ok(timedOut!.latencyMs >= TIMEOUT_MS * 0.9, `latency ${timedOut!.latencyMs} ms`);
});

test('given a receiver that answers 429 with Retry-After: 1, when an event is delivered, then the next attempt comes at least a second later (not the schedule’s 300 ms)', async (ctx) => {
  const owner = await organiser(ctx, 'Busy');
  const endpoint = await createEndpoint(ctx, owner, '/b429');
  ctx.receiver.answer('/b429', ({ arrival }) => (arrival === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
  await someEvent(ctx, owner);
  await ctx.receiver.until(() => ctx.receiver.on('/b429').some((d) => d.arrival === 2), 'the retry after Retry-After');
  const [first, second] = ctx.receiver.on('/b429');
  assert.ok(second!.at - first!.at >= 1000, `Retry-After honoured (${second!.at - first!.at} ms)`);
  await waitFor(async () => (await attemptsOf(ctx, owner, endpoint.id)).length === 2, 'two attempts recorded');
  assert.equal((await attemptsOf(ctx, owner, endpoint.id)).map((a) => a.statusCode), [200, 429]);
});

// ---- c. rotation and the ed25519 signature --------------------------------------------------------------------------

/** The KeyObject of a `whpk_…` key, built from its raw 32 bytes the way a partner would (SPKI prefix of ed25519). */
const ed25519Key = (publicKey: string) => {
  const raw = Buffer.from(publicKey.replace(/^whpk_/, ''), 'base64');
  assert.is(raw.length, 32);
  return createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki' });
};

test('given a secret rotated mid-stream, when events follow, then they carry two v1 signatures that the old and the new secret each verify, and the v1a signature verifies with the tenant’s public key', async (ctx) => {
  const owner = await organiser(ctx, 'Rotate');
  const endpoint = await createEndpoint(ctx, owner, '/c');
  await someEvent(ctx, owner);
  await ctx.receiver.until(() => ctx.receiver.on('/c').length === 1, 'the first event on /c');
  const before = ctx.receiver.on('/c')[0]!;
  assert.is(signaturesOf(before, 'v1').length, 1, 'one secret, one v1 signature');
  verifyWith(endpoint.secret, before);

  const rotated = await as(ctx, owner).post(`/v1/webhooks/${endpoint.id}/rotate-secret`, { expiresInSeconds: 3600 });
  assert.is(rotated.status, 200, rotated.text);
  const newSecret = rotated.body.data.secret as string;
  assert.is.not(newSecret, endpoint.secret);
  await someEvent(ctx, owner);
  await someEvent(ctx, owner);
  await ctx.receiver.until(() => ctx.receiver.on('/c').length === 3, 'two events after the rotation');
  const keyRes = await as(ctx, owner).get('/v1/webhooks/signing-key');
  assert.equal([keyRes.status, keyRes.body.data.algorithm], [200, 'ed25519'], keyRes.text);
  const key = ed25519Key(keyRes.body.data.publicKey);
  for (const d of ctx.receiver.on('/c').slice(1)) {
    assert.is(signaturesOf(d, 'v1').length, 2, 'both secrets sign');
    assert.is(verifyWith(endpoint.secret, d).id, d.id, 'the old secret verifies');
    assert.is(verifyWith(newSecret, d).id, d.id, 'the new secret verifies');
  }
  for (const d of ctx.receiver.on('/c')) {
    const v1a = signaturesOf(d, 'v1a');
    assert.is(v1a.length, 1, 'one v1a signature');
    assert.ok(verify(null, Buffer.from(`${d.id}.${d.timestamp}.${d.body}`), key, Buffer.from(v1a[0]!, 'base64')), 'ed25519 verifies with node:crypto');
    assert.not.ok(verify(null, Buffer.from(`${d.id}.${d.timestamp}.${d.body} `), key, Buffer.from(v1a[0]!, 'base64')), 'and not for another body');
  }
  // Once the old secret has expired, only the new one signs.
  const expired = await as(ctx, owner).post(`/v1/webhooks/${endpoint.id}/rotate-secret`, { expiresInSeconds: 0 });
  assert.is(expired.status, 200, expired.text);
  const newest = expired.body.data.secret as string;
  await someEvent(ctx, owner);
  await ctx.receiver.until(() => ctx.receiver.on('/c').length === 4, 'an event after the old secrets expired');
  const last = ctx.receiver.on('/c')[3]!;
  assert.is(signaturesOf(last, 'v1').length, 1);
  verifyWith(newest, last);
  assert.throws(() => verifyWith(endpoint.secret, last));
  assert.throws(() => verifyWith(newSecret, last));
});

// ---- d. recover and test --------------------------------------------------------------------------------------------

test('given delivered events, when the owner recovers their window, then they are delivered again with the same webhook-ids and bodies; a test sends webhook.test', async (ctx) => {
  const owner = await organiser(ctx, 'Recover');
  const endpoint = await createEndpoint(ctx, owner, '/d');
  const since = new Date(Date.now() - 1000).toISOString();
  for (let i = 0; i < 3; i++) await someEvent(ctx, owner);
  await ctx.receiver.until(() => ctx.receiver.on('/d').length === 3, 'three events on /d');
  const firstRound = ctx.receiver.on('/d').map((d) => ({ id: d.id, body: d.body }));

  const recovered = await as(ctx, owner).post(`/v1/webhooks/${endpoint.id}/recover`, { since });
  assert.is(recovered.status, 202, recovered.text);
  assert.is(recovered.body.data.scheduled, 3);
  await ctx.receiver.until(() => ctx.receiver.on('/d').length === 6, 'the window delivered again');
  const again = ctx.receiver.on('/d').slice(3);
  assert.equal(new Set(again.map((d) => d.id)), new Set(firstRound.map((d) => d.id)), 'the same webhook-ids');
  for (const d of again) {
    assert.is(d.arrival, 2);
    assert.is(d.body, firstRound.find((f) => f.id === d.id)!.body, 'the same body');
    verifyWith(endpoint.secret, d);
  }
  const recoveries = (await attemptsOf(ctx, owner, endpoint.id)).filter((a) => a.trigger === 'recovery');
  assert.is(recoveries.length, 3, 'the attempts say they were a recovery');

  // A window before the events: nothing.
  const empty = await as(ctx, owner).post(`/v1/webhooks/${endpoint.id}/recover`, { since: new Date(Date.now() - 3_600_000).toISOString(), until: since });
  assert.equal([empty.status, empty.body.data.scheduled], [202, 0], empty.text);

  const sent = await as(ctx, owner).post(`/v1/webhooks/${endpoint.id}/test`);
  assert.is(sent.status, 202, sent.text);
  await ctx.receiver.until(() => ctx.receiver.on('/d').some((d) => bodyOf(d).type === 'webhook.test'), 'webhook.test on /d');
  const t = ctx.receiver.on('/d').find((d) => bodyOf(d).type === 'webhook.test')!;
  assert.is(t.id, sent.body.data.eventId);
  const verified = verifyWith(endpoint.secret, t);
  assert.equal([verified.type, verified.tenant], ['webhook.test', ctx.tenant.id]);
  await sleep(800);
  assert.is(ctx.receiver.on('/d').length, 7, 'nothing else');
});

// ---- e. scope -------------------------------------------------------------------------------------------------------

test('given endpoints of an organiser and of the tenant, when another organiser and another tenant act, then an organiser’s endpoint gets only theirs, the tenant’s gets its organisers’, and nothing of another tenant arrives', async (ctx) => {
  const mine = await organiser(ctx, 'Mine');
  const theirs = await organiser(ctx, 'Theirs');
  const stranger = await ctx.api.user(ctx.other.slug, { role: 'organiser', wallet: false, name: 'Elsewhere' });
  const own = await createEndpoint(ctx, mine, '/e-own');
  const tenantWide = await createEndpoint(ctx, ctx.auditor, '/e-tenant');
  const strangers = await createEndpoint(ctx, stranger, '/e-other');

  const theirPool = await someEvent(ctx, theirs);
  const strangerPool = await someEvent(ctx, stranger);
  const myPool = await someEvent(ctx, mine); // after the others: once it arrived, the dispatcher went past them
  await ctx.receiver.until(
    () => ctx.receiver.on('/e-own').length >= 1 && ctx.receiver.on('/e-tenant').length >= 2 && ctx.receiver.on('/e-other').length >= 1,
    'each endpoint’s events',
  );
  await sleep(1000);
  const subjects = (path: string) => ctx.receiver.on(path).map((d) => bodyOf(d).subject);
  assert.equal(subjects('/e-own'), [myPool], 'only the organiser’s own');
  assert.equal(new Set(subjects('/e-tenant')), new Set([theirPool, myPool]), 'the tenant’s organisers’, not another tenant’s');
  assert.equal(subjects('/e-other'), [strangerPool], 'another tenant’s endpoint gets its own only');
  for (const d of ctx.receiver.on('/e-tenant')) verifyWith(tenantWide.secret, d);
  verifyWith(own.secret, ctx.receiver.on('/e-own')[0]!);
  verifyWith(strangers.secret, ctx.receiver.on('/e-other')[0]!);
  assert.ok(
    ctx.receiver.on('/e-other').every((d) => bodyOf(d).tenant === ctx.other.id) && ctx.receiver.on('/e-tenant').every((d) => bodyOf(d).tenant === ctx.tenant.id),
    'each delivery names its tenant',
  );
  // And over the whole run: no path ever received another tenant's event.
  const other = ctx.receiver.deliveries.filter((d) => d.path !== '/e-other' && bodyOf(d).tenant !== ctx.tenant.id);
  assert.equal(other.map((d) => d.path), []);
});

test.run();
