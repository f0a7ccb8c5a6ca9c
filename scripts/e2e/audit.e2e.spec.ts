import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { grantAuditor } from '@cagnotte/command-api';
import { ESCROW_HISTORY_TYPES } from '@cagnotte/event-schemas';
import { formatPosition, type RecordedEvent } from '@cagnotte/infra';
import { runCli, startApi, type TestApi, type TestUser } from './harness';
import { signXdr } from './wallet';

/**
 * The auditor's view through HTTP, the way a partner's back office reads it: an operator grants an auditor with the
 * CLI; a pool is published, reserved and paid on the sandbox ledger; then histories (paged, verified, with access
 * refused as 404 to whoever is not entitled), time travel, the CLI verbs, and a forged event made visible.
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  organiser: TestUser;
  auditor: TestUser;
  bea: TestUser;
  bob: TestUser;
  outsider: TestUser;
  poolId: string;
  beaRes: string;
  bobRes: string;
  /** The pool stream as the event store holds it once everything happened. */
  stream: RecordedEvent[];
  lastPosition: string;
}

const cli = runCli;

const test = suite<Ctx>('audit: histories, verification, time travel, auditors');

const as = (ctx: Ctx, user: TestUser | null, tenant: string | null = ctx.tenant) => ({
  post: async (path: string, body: unknown = {}) => {
    const res = await ctx.api.call('POST', path, { token: user?.token, tenant: tenant ?? undefined, body, headers: { 'Idempotency-Key': randomUUID() } });
    const p = res.headers.get('x-event-position');
    if (p) ctx.lastPosition = p;
    return res;
  },
  get: (path: string) => ctx.api.call('GET', path, { token: user?.token, tenant: tenant ?? undefined, headers: ctx.lastPosition ? { 'X-Min-Position': ctx.lastPosition } : {} }),
});

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org Anne' });
  ctx.auditor = await ctx.api.user(ctx.tenant, { name: 'Audrey' });
  ctx.bea = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Bea' });
  ctx.bob = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Bob' });
  // An auditor too, of another tenant: auditing one tenant opens nothing of another.
  const other = (await ctx.api.tenant()).slug;
  ctx.outsider = await ctx.api.user(other, { name: 'Otto' });
  const granted = await grantAuditor(ctx.api.services, { slug: other, userId: ctx.outsider.id }, { actor: { kind: 'operator', id: 'e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });
  await ctx.api.runner.catchUp(granted.position);

  const org = as(ctx, ctx.organiser);
  const created = await org.post('/api/pools', {
    type: 'GROUPS',
    title: 'Fromages du Jura',
    config: { units: [{ id: 'comte', label: 'Comté 1 kg', price: '18.50', quantity: 10 }], relais: [{ id: 'r1', name: 'Fromagerie', city: 'Lyon' }], notes: 'owner only' },
  });
  assert.is(created.status, 201, created.text);
  ctx.poolId = created.body.data.id;
  assert.is((await org.post(`/api/pools/${ctx.poolId}/publish`)).status, 200);

  const reserve = async (user: TestUser, quantity: number) => {
    const res = await as(ctx, user).post(`/api/pools/${ctx.poolId}/reservations`, { lines: [{ unitId: 'comte', quantity }], relaisId: 'r1' });
    assert.is(res.status, 201, res.text);
    return res.body.data.id as string;
  };
  ctx.beaRes = await reserve(ctx.bea, 2);
  const terms = (await as(ctx, ctx.bea).get(`/api/pools/${ctx.poolId}/terms`)).body.data;
  const signed = await as(ctx, ctx.bea).post(`/api/pools/${ctx.poolId}/reservations/${ctx.beaRes}/sign`, { acceptTerms: true, termsVersion: terms.version, termsHash: terms.hash });
  assert.is(signed.status, 200, signed.text);
  await ctx.bea.wallet!.horizon.submitTransaction(signXdr(ctx.bea.wallet!, signed.body.data.payment.xdr));
  const paid = await as(ctx, ctx.bea).post(`/api/pools/${ctx.poolId}/reservations/${ctx.beaRes}/pay`, { txHash: signed.body.data.payment.hash });
  assert.is(paid.body.data?.reservation?.status, 'PAID', paid.text);
  ctx.bobRes = await reserve(ctx.bob, 1);
  ctx.stream = await ctx.api.services.store.readStream(`pool-${ctx.poolId}`);
});
test.after(async (ctx) => ctx.api.stop());

const pos = (s: string) => s.split('-').map(BigInt) as [bigint, bigint];
const ascending = (a: string, b: string) => pos(a)[0] < pos(b)[0] || (pos(a)[0] === pos(b)[0] && pos(a)[1] < pos(b)[1]);
const byType = (ctx: Ctx, type: string) => ctx.stream.find((e) => e.type === type && (e.data as { buyerId?: string }).buyerId !== ctx.bob.id)!;

test('an operator grants an auditor with the CLI; it is listed; a stranger to the tenant and bad usage are refused', async (ctx) => {
  const grant = await cli('auditor', 'grant', '--tenant', ctx.tenant, '--email', ctx.auditor.email);
  assert.is(grant.code, 0, grant.err);
  assert.equal(JSON.parse(grant.out).auditor, true);
  assert.is(JSON.parse((await cli('auditor', 'grant', '--tenant', ctx.tenant, '--email', ctx.auditor.email)).out).changed, false, 'granting again records nothing');
  const list = await cli('auditor', 'list', '--tenant', ctx.tenant);
  assert.is(list.code, 0, list.err);
  assert.equal(JSON.parse(list.out).auditors.map((a: { email: string }) => a.email), [ctx.auditor.email]);
  assert.is((await cli('auditor', 'grant', '--tenant', ctx.tenant, '--email', ctx.outsider.email)).code, 2, 'not an account of the tenant');
  assert.is((await cli('auditor', 'grant', '--tenant', ctx.tenant)).code, 2);
});

test('the auditor reads the whole history: every stored event in order, actors, verified links; page 2 goes on from page 1', async (ctx) => {
  const p1 = await as(ctx, ctx.auditor).get(`/api/pools/${ctx.poolId}/history?limit=4`);
  assert.is(p1.status, 200, p1.text);
  assert.is(p1.headers.get('x-consistency'), 'fresh');
  const p2 = await as(ctx, ctx.auditor).get(`/api/pools/${ctx.poolId}/history?limit=4&page=2`);
  const items = [...p1.body.data.items, ...p2.body.data.items];
  assert.is(p1.body.data.pagination.total, ctx.stream.length);
  assert.is(items.length, ctx.stream.length);
  assert.equal(
    items.map((i: any) => [i.revision, i.eventId, i.type, i.position, i.schemaVersion, i.data, i.metadata, i.hash, i.prevHash]),
    ctx.stream.map((e) => [Number(e.revision), e.id, e.type, formatPosition(e.position), e.schemaVersion, e.data, e.metadata, e.hash, e.prevHash]),
    'exactly the stored events',
  );
  assert.equal(items.slice(0, 2).map((i: any) => i.type), ['PoolCreated', 'PoolPublished']);
  assert.ok(items.every((i: any, k: number) => k === 0 || ascending(items[k - 1].position, i.position)), 'positions ascend');
  assert.is(p2.body.data.items[0].prevHash, p1.body.data.items[3].hash, 'page 2 links to the end of page 1');
  assert.ok(items.every((i: any) => i.verified && i.redacted.length === 0));
  assert.equal([p1.body.data.chain, p2.body.data.chain], [{ verified: true, firstBroken: null }, { verified: true, firstBroken: null }]);
  assert.equal(items[0].actor, { kind: 'user', id: ctx.organiser.id });
  assert.equal(items.find((i: any) => i.type === 'ReservationPaid').actor, { kind: 'user', id: ctx.bea.id });

  const escrow = await as(ctx, ctx.auditor).get(`/api/pools/${ctx.poolId}/escrow/history`);
  assert.is(escrow.status, 200, escrow.text);
  const types = escrow.body.data.items.map((i: any) => i.type);
  assert.ok(types.includes('PoolPublished') && types.includes('ReservationPaid'), types.join());
  assert.ok(types.every((t: string) => ESCROW_HISTORY_TYPES.has(t)));
  assert.ok(escrow.body.data.items.every((i: any) => i.verified));
});

test('the organiser reads it; a buyer reads their own reservation only; anyone else gets a 404, no token a 401', async (ctx) => {
  const path = `/api/pools/${ctx.poolId}/history`;
  const own = await as(ctx, ctx.organiser).get(path);
  assert.is(own.status, 200, own.text);
  assert.is(own.body.data.pagination.total, ctx.stream.length);

  const mine = await as(ctx, ctx.bea).get(`/api/pools/${ctx.poolId}/reservations/${ctx.beaRes}/history`);
  assert.is(mine.status, 200, mine.text);
  assert.equal(mine.body.data.items.map((i: any) => i.type), ['ReservationPlaced', 'ReservationSigned', 'ReservationPaid']);
  assert.ok(mine.body.data.items.every((i: any) => i.data.reservationId === ctx.beaRes && i.verified));
  assert.is(mine.body.data.chain.verified, true, 'links checked against revision − 1 even when it is not listed');
  assert.is((await as(ctx, ctx.auditor).get(`/api/pools/${ctx.poolId}/reservations/${ctx.bobRes}/history`)).status, 200, 'an auditor reads any reservation');

  const refused = {
    'a buyer, the pool history': (await as(ctx, ctx.bea).get(path)).status,
    "a buyer, another buyer's reservation": (await as(ctx, ctx.bea).get(`/api/pools/${ctx.poolId}/reservations/${ctx.bobRes}/history`)).status,
    "the other buyer, the first one's": (await as(ctx, ctx.bob).get(`/api/pools/${ctx.poolId}/reservations/${ctx.beaRes}/history`)).status,
    'a buyer, the state': (await as(ctx, ctx.bea).get(`/api/pools/${ctx.poolId}/state`)).status,
    "another tenant's auditor, this tenant named": (await as(ctx, ctx.outsider).get(path)).status,
    "another tenant's auditor, their own tenant": (await as(ctx, ctx.outsider, null).get(path)).status,
    'an auditor, a missing pool': (await as(ctx, ctx.auditor).get(`/api/pools/${randomUUID()}/history`)).status,
    'an auditor, a missing reservation': (await as(ctx, ctx.auditor).get(`/api/pools/${ctx.poolId}/reservations/${randomUUID()}/history`)).status,
    'no token': (await as(ctx, null).get(path)).status,
  };
  assert.equal(refused, Object.fromEntries(Object.keys(refused).map((k) => [k, k === 'no token' ? 401 : 404])));
  const body = (await as(ctx, ctx.outsider).get(path)).body;
  assert.equal([body.success, body.code], [false, 'pool_not_found'], 'the answer a missing pool gets');
});

test('time travel: before the payment PENDING, at it PAID, by position, revision or time; now: the pool as its read shows it', async (ctx) => {
  const state = (at?: string) => as(ctx, ctx.auditor).get(`/api/pools/${ctx.poolId}/state${at === undefined ? '' : `?at=${encodeURIComponent(at)}`}`);
  const signedEvent = byType(ctx, 'ReservationSigned');
  const paidEvent = byType(ctx, 'ReservationPaid');
  const statusOf = (res: any) => res.body.data.reservations.map((r: any) => [r.buyerName, r.status]);

  const before = await state(formatPosition(signedEvent.position));
  assert.is(before.status, 200, before.text);
  assert.equal(statusOf(before), [['Bea', 'PENDING']]);
  assert.equal(before.body.data.asOf, { position: formatPosition(signedEvent.position), revision: Number(signedEvent.revision), eventId: signedEvent.id, occurredAt: signedEvent.metadata.occurredAt });
  assert.is(before.body.data.pool.status, 'OPEN');
  assert.is(before.body.data.pool.config.notes, 'owner only', "the organiser's view");
  assert.equal(statusOf(await state(formatPosition(paidEvent.position))), [['Bea', 'PAID']]);
  assert.equal(statusOf(await state(String(paidEvent.revision))), [['Bea', 'PAID']]);
  assert.equal(statusOf(await state(paidEvent.metadata.occurredAt)), [['Bea', 'PAID']], 'an ISO time, inclusive');
  assert.equal(statusOf(await state(new Date(Date.parse(paidEvent.metadata.occurredAt) - 1).toISOString())), [['Bea', 'PENDING']]);

  const now = await state();
  assert.equal(statusOf(now), [['Bea', 'PAID'], ['Bob', 'PENDING']]);
  assert.is(now.body.data.asOf.revision, ctx.stream.length - 1);
  const read = (await as(ctx, ctx.organiser).get(`/api/pools/${ctx.poolId}`)).body.data;
  assert.equal({ ...now.body.data.pool, revision: 0 }, { ...read, revision: 0 }, 'the same view the pool read serves');

  const early = await state('2000-01-01T00:00:00Z');
  assert.equal([early.status, early.body.code], [404, 'not_yet_existing']);
  const bad = await state('last tuesday');
  assert.equal([bad.status, Object.keys(bad.body.errors)], [400, ['at']]);
  assert.is((await as(ctx, ctx.organiser).get(`/api/pools/${ctx.poolId}/state?at=0`)).body.data.pool.status, 'DRAFT', 'the organiser travels too');
});

test('the CLI: pool history (from the event store, filters, limit) and pool state', async (ctx) => {
  const all = await cli('pool', 'history', ctx.poolId);
  assert.is(all.code, 0, all.err);
  const h = JSON.parse(all.out);
  assert.equal([h.events, h.total, h.chain], [ctx.stream.length, ctx.stream.length, { verified: true, firstBroken: null }]);
  assert.equal(h.items.map((i: any) => [i.eventId, i.verified]), ctx.stream.map((e) => [e.id, true]));
  const mine = JSON.parse((await cli('pool', 'history', ctx.poolId, '--reservation', ctx.beaRes, '--limit', '2')).out);
  assert.equal([mine.total, mine.items.map((i: any) => i.type)], [3, ['ReservationPlaced', 'ReservationSigned']]);
  const escrow = JSON.parse((await cli('pool', 'history', ctx.poolId, '--escrow')).out);
  assert.ok(escrow.items.length > 0 && escrow.items.every((i: any) => ESCROW_HISTORY_TYPES.has(i.type)));

  const signedEvent = byType(ctx, 'ReservationSigned');
  const st = await cli('pool', 'state', ctx.poolId, '--at', formatPosition(signedEvent.position));
  assert.is(st.code, 0, st.err);
  assert.equal(JSON.parse(st.out).reservations.map((r: any) => r.status), ['PENDING']);
  const atTime = JSON.parse((await cli('pool', 'state', ctx.poolId, '--at', byType(ctx, 'ReservationPaid').metadata.occurredAt)).out);
  assert.equal(atTime.reservations.map((r: any) => r.status), ['PAID']);
  assert.is((await cli('pool', 'history', randomUUID())).code, 1, 'no such pool');
  assert.is((await cli('pool', 'state', ctx.poolId, '--at', 'soon')).code, 2);
});

test('a revoked auditor reads nothing more', async (ctx) => {
  const revoke = await cli('auditor', 'revoke', '--tenant', ctx.tenant, '--email', ctx.auditor.email);
  assert.is(revoke.code, 0, revoke.err);
  assert.equal(JSON.parse(revoke.out).auditor, false);
  assert.is((await as(ctx, ctx.auditor).get(`/api/pools/${ctx.poolId}/history`)).status, 404);
});

test('tamper evidence: an event edited in the store and in the audit copy shows unverified, and the chain names it', async (ctx) => {
  const victim = byType(ctx, 'ReservationSigned');
  const knex = ctx.api.services.knex;
  const forged = { ...(victim.data as object), escrowAccount: `G${'F'.repeat(55)}` };
  const write = async (data: unknown) => {
    // As an attacker with the database's superuser rights would (the log's append-only trigger bypassed).
    await knex.transaction(async (trx) => {
      await trx.raw('SET LOCAL session_replication_role = replica');
      await trx.raw('UPDATE es_events SET data = ?::jsonb WHERE event_id = ?', [JSON.stringify(data), victim.id]);
    });
    await knex('rm_audit_events').where({ event_id: victim.id }).update({ data: JSON.stringify(data) });
  };
  try {
    await write(forged);
    const res = await as(ctx, ctx.organiser).get(`/api/pools/${ctx.poolId}/history?limit=100`);
    assert.is(res.status, 200, res.text);
    const flagged = res.body.data.items.filter((i: any) => !i.verified).map((i: any) => i.eventId);
    assert.equal(flagged, [victim.id], 'only the edited event');
    assert.equal(res.body.data.chain, { verified: false, firstBroken: { revision: Number(victim.revision), eventId: victim.id, reason: 'content does not match its hash' } });
    const own = await as(ctx, ctx.bea).get(`/api/pools/${ctx.poolId}/reservations/${ctx.beaRes}/history`);
    assert.is(own.body.data.chain.firstBroken?.eventId, victim.id, 'the buyer sees it in their own history');

    const fromStore = await cli('pool', 'history', ctx.poolId);
    assert.is(fromStore.code, 1, 'the CLI exits 1 on a broken chain');
    assert.equal(JSON.parse(fromStore.out).chain.firstBroken, { revision: Number(victim.revision), eventId: victim.id, reason: 'content does not match its hash' });
  } finally {
    await write(victim.data);
  }
  const healed = await as(ctx, ctx.organiser).get(`/api/pools/${ctx.poolId}/history?limit=100`);
  assert.equal(healed.body.data.chain, { verified: true, firstBroken: null });
});

test('past ten events, the history, its chain and events verify agree: revisions are read as numbers (10 after 9, not after 1)', async (ctx) => {
  const stream = `pool-${ctx.poolId}`;
  // The organiser moves the pool between countries until its stream holds a dozen events.
  for (let k = 0; (await ctx.api.services.store.readStream(stream)).length < 12; k++) {
    assert.ok(k < 12, 'a country change records an event');
    const res = await ctx.api.call('PATCH', `/api/pools/${ctx.poolId}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { country: k % 2 ? 'FR' : 'BE' }, headers: { 'Idempotency-Key': randomUUID() } });
    assert.is(res.status, 200, res.text);
    const p = res.headers.get('x-event-position');
    if (p) ctx.lastPosition = p;
  }
  const events = await ctx.api.services.store.readStream(stream);
  const history = await as(ctx, ctx.organiser).get(`/api/pools/${ctx.poolId}/history?limit=100`);
  assert.is(history.status, 200, history.text);
  assert.equal(history.body.data.items.map((i: any) => [i.revision, i.verified]), events.map((e) => [Number(e.revision), true]));
  assert.equal(history.body.data.chain, { verified: true, firstBroken: null });
  const verify = await cli('events', 'verify', stream);
  assert.is(verify.code, 0, verify.out + verify.err);
  const [r] = JSON.parse(verify.out).results;
  assert.equal([r.streamId, r.ok, r.checked, r.chain, r.firstForged], [stream, true, events.length, { ok: true }, null], 'events verify says what the history says');
});

test.run();
