/**
 * Issue 20 §2: the event feed through HTTP, the way a partner's back office or an internal consumer reads it. Public
 * events are inserted into rm_public_events as the public-events projection writes them (then NOTIFY public_events),
 * so this spec holds whatever the catalogue maps. Readers: an auditor of the tenant (every event), an organiser (their
 * own), anyone else 404; another tenant's events never appear. Long-poll answers as soon as an event is committed;
 * the SSE stream resumes from Last-Event-ID across a kill -9 of the server with nothing lost or repeated.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { grantAuditor } from '@cagnotte/command-api';
import { decodeCursor, encodeCursor } from '@cagnotte/read-models';
import { startApi, type TestApi, type TestUser } from './harness';
import { insertPublicEvent, openSse, type InsertedEvent } from './public-events';
import { ChildServer, freePort } from './child-server';

interface Ctx {
  api: TestApi;
  tenant: { id: string; slug: string };
  other: { id: string; slug: string };
  organiser: TestUser;
  organiser2: TestUser;
  auditor: TestUser;
  stranger: TestUser;
  otherAuditor: TestUser;
  events: InsertedEvent[];
}

const HEARTBEAT_MS = 300;
const MAX_WAITERS = 3;
const test = suite<Ctx>('e2e: the event feed (GET /v1/events, long-poll, SSE)');
const meta = () => ({ actor: { kind: 'operator' as const, id: 'e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });

test.before(async (ctx) => {
  ctx.api = await startApi({ FEED_HEARTBEAT_MS: HEARTBEAT_MS, FEED_MAX_WAITERS_PER_TENANT: MAX_WAITERS });
  ctx.tenant = await ctx.api.tenant();
  ctx.other = await ctx.api.tenant();
  ctx.organiser = await ctx.api.user(ctx.tenant.slug, { role: 'organiser', wallet: false });
  ctx.organiser2 = await ctx.api.user(ctx.tenant.slug, { role: 'organiser', wallet: false });
  ctx.auditor = await ctx.api.user(ctx.tenant.slug, { name: 'Audrey' });
  ctx.stranger = await ctx.api.user(ctx.tenant.slug, { name: 'Stan' });
  ctx.otherAuditor = await ctx.api.user(ctx.other.slug, { name: 'Otto' });
  for (const [slug, user] of [[ctx.tenant.slug, ctx.auditor], [ctx.other.slug, ctx.otherAuditor]] as const) {
    const granted = await grantAuditor(ctx.api.services, { slug, userId: user.id }, meta());
    await ctx.api.runner.catchUp(granted.position);
  }
  const add = (tenant: string, ownerId: string | null, type: string) => insertPublicEvent(ctx.api.services.knex, ctx.api.services.pgPool, { tenant, ownerId, type });
  ctx.events = [];
  ctx.events.push(await add(ctx.tenant.id, ctx.organiser.id, 'pool.published'));
  ctx.events.push(await add(ctx.other.id, null, 'pool.published'));
  ctx.events.push(await add(ctx.tenant.id, ctx.organiser2.id, 'reservation.placed'));
  ctx.events.push(await add(ctx.tenant.id, ctx.organiser.id, 'reservation.paid'));
  ctx.events.push(await add(ctx.other.id, null, 'reservation.paid'));
});

test.after(async (ctx) => ctx.api.stop());

const get = (ctx: Ctx, user: TestUser | null, path: string, tenant?: string) => ctx.api.call('GET', path, { token: user?.token, tenant: tenant ?? user?.tenant });
const ids = (items: Array<{ id: string }>) => items.map((i) => i.id);
const ofTenant = (ctx: Ctx, tenant: string) => ctx.events.filter((e) => e.tenant === tenant).map((e) => e.id);

test('an auditor reads every event of the tenant in commit order; an organiser only their own; paging with nextCursor', async (ctx) => {
  const all = await get(ctx, ctx.auditor, '/v1/events');
  assert.is(all.status, 200, all.text);
  assert.equal(ids(all.body.data.items), ofTenant(ctx, ctx.tenant.id));
  const first = all.body.data.items[0];
  assert.equal(Object.keys(first), ['id', 'type', 'createdAt', 'tenant', 'subject', 'sequence', 'apiVersion', 'data']);
  assert.is(first.tenant, ctx.tenant.id);
  const own = await get(ctx, ctx.organiser, '/v1/events');
  assert.equal(ids(own.body.data.items), ctx.events.filter((e) => e.ownerId === ctx.organiser.id).map((e) => e.id));
  // One at a time: each nextCursor reads on from the last item.
  const seen: string[] = [];
  let cursor = '';
  for (let i = 0; i < 5; i++) {
    const page = await get(ctx, ctx.auditor, `/v1/events?limit=1${cursor ? `&after=${cursor}` : ''}`);
    assert.is(page.status, 200, page.text);
    seen.push(...ids(page.body.data.items));
    if (page.body.data.items.length === 0) assert.is(page.body.data.nextCursor, cursor, 'an empty page keeps the cursor');
    cursor = page.body.data.nextCursor;
  }
  assert.equal(seen, ofTenant(ctx, ctx.tenant.id));
  const filtered = await get(ctx, ctx.auditor, '/v1/events?types=reservation.*');
  assert.equal(filtered.body.data.items.map((i: { type: string }) => i.type), ['reservation.placed', 'reservation.paid']);
  const subject = ctx.events[2]!.subject;
  assert.equal(ids((await get(ctx, ctx.auditor, `/v1/events?subject=${subject}`)).body.data.items), [ctx.events[2]!.id]);
});

test('a user who is neither auditor nor organiser of the tenant gets 404; no token 401; another tenant named in the header 404', async (ctx) => {
  const stranger = await get(ctx, ctx.stranger, '/v1/events');
  assert.is(stranger.status, 404, stranger.text);
  assert.is(stranger.body.code, 'events_not_found');
  assert.is((await get(ctx, ctx.stranger, '/v1/events/stream')).status, 404);
  assert.is((await get(ctx, null, '/v1/events')).status, 401);
  // The other tenant's auditor naming this tenant, and this tenant's auditor naming the other: a session counts in its own tenant only.
  assert.is((await get(ctx, ctx.otherAuditor, '/v1/events', ctx.tenant.slug)).status, 404);
  assert.is((await get(ctx, ctx.auditor, '/v1/events', ctx.other.slug)).status, 404);
});

test("another tenant's events never appear, whatever the cursor", async (ctx) => {
  const mine = await get(ctx, ctx.otherAuditor, '/v1/events');
  assert.equal(ids(mine.body.data.items), ofTenant(ctx, ctx.other.id));
  const theirs = await get(ctx, ctx.auditor, '/v1/events');
  const cursors = [theirs.body.data.nextCursor, encodeCursor({ commit: 0n, prepare: 0n, idx: 0 }), mine.body.data.nextCursor];
  for (const c of cursors) {
    const page = await get(ctx, ctx.otherAuditor, `/v1/events?after=${c}`);
    assert.is(page.status, 200);
    for (const item of page.body.data.items) assert.is(item.tenant, ctx.other.id);
  }
});

test('an invalid cursor, limit, wait or types is a 400 naming the field', async (ctx) => {
  const bad = async (query: string, field: string) => {
    const res = await get(ctx, ctx.auditor, `/v1/events?${query}`);
    assert.is(res.status, 400, `${query}: ${res.text}`);
    assert.ok(res.body.errors?.[field], `${query}: errors.${field} in ${res.text}`);
  };
  await bad('after=garbage', 'after');
  await bad(`after=${Buffer.from('10.x.0').toString('base64url')}`, 'after');
  await bad('limit=0', 'limit');
  await bad('limit=501', 'limit');
  await bad('limit=ten', 'limit');
  await bad('wait=31', 'wait');
  await bad('types=Reservation.Paid', 'types');
  await bad('types=reservation.*.paid', 'types');
  await bad('types=reservaton.*', 'types');
  await bad('types=reservation.payed', 'types');
  const sse = await get(ctx, ctx.auditor, '/v1/events/stream?after=garbage');
  assert.is(sse.status, 400);
  assert.ok(sse.body.errors.after);
  const header = await ctx.api.call('GET', '/v1/events/stream', { token: ctx.auditor.token, headers: { 'last-event-id': 'nope' } });
  assert.is(header.status, 400);
  assert.ok(header.body.errors['last-event-id']);
  assert.is((await get(ctx, ctx.auditor, '/v1/events?limit=500&wait=0')).status, 200);
});

test('long-poll: nothing new holds until wait ends (items [] and nextCursor unchanged); an event committed meanwhile answers at once', async (ctx) => {
  const head = (await get(ctx, ctx.auditor, '/v1/events')).body.data.nextCursor as string;
  let started = Date.now();
  const idle = await get(ctx, ctx.auditor, `/v1/events?after=${head}&wait=1`);
  assert.ok(Date.now() - started >= 950, `held ${Date.now() - started} ms`);
  assert.equal(idle.body.data, { items: [], nextCursor: head });

  started = Date.now();
  const polling = get(ctx, ctx.auditor, `/v1/events?after=${head}&wait=20`);
  await new Promise((r) => setTimeout(r, 300));
  // Another tenant's event does not answer this tenant's poll.
  await insertPublicEvent(ctx.api.services.knex, ctx.api.services.pgPool, { tenant: ctx.other.id, type: 'pool.closed' });
  const inserted = await insertPublicEvent(ctx.api.services.knex, ctx.api.services.pgPool, { tenant: ctx.tenant.id, ownerId: ctx.organiser.id, type: 'pool.closed' });
  const res = await polling;
  const took = Date.now() - started;
  assert.is(res.status, 200, res.text);
  assert.equal(ids(res.body.data.items), [inserted.id]);
  assert.ok(took < 5_000, `answered after ${took} ms`);
  assert.ok(decodeCursor(res.body.data.nextCursor), 'a cursor');
  assert.is(ctx.api.services.feedWaker.waiting(ctx.tenant.id), 0, 'the poll released its place');
  ctx.events.push(inserted);
});

test('SSE: the history then live events, `id:` is the cursor, heartbeats, type filter; a disconnect leaves no waiter behind', async (ctx) => {
  const base = `${ctx.api.url}/v1/events/stream`;
  const auth = { authorization: `Bearer ${ctx.auditor.token}` };
  const stream = await openSse(base, auth);
  assert.is(stream.status, 200, stream.errorText);
  assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
  const history = ofTenant(ctx, ctx.tenant.id);
  await stream.next(history.length);
  assert.equal(stream.events.map((e) => JSON.parse(e.data!).id), history);
  assert.ok(stream.events.every((e) => decodeCursor(e.id!) !== null && e.event === JSON.parse(e.data!).type));
  const live = await insertPublicEvent(ctx.api.services.knex, ctx.api.services.pgPool, { tenant: ctx.tenant.id, type: 'payout.settled' });
  ctx.events.push(live);
  await stream.next(history.length + 1, 5_000);
  assert.is(JSON.parse(stream.events.at(-1)!.data!).id, live.id);
  await stream.waitFor(() => stream.comments.includes('heartbeat'), 'a heartbeat', 5_000);

  // From the middle, filtered.
  const filtered = await openSse(`${base}?types=payout.*,pool.closed`, { ...auth, 'last-event-id': stream.events[0]!.id! });
  const expected = ctx.events.filter((e) => e.tenant === ctx.tenant.id && ['payout.settled', 'pool.closed'].includes(e.type)).map((e) => e.id);
  await filtered.next(expected.length);
  assert.equal(filtered.events.map((e) => JSON.parse(e.data!).id), expected);

  assert.is(ctx.api.services.feedWaker.waiting(ctx.tenant.id), 2);
  await stream.close();
  await filtered.close();
  const deadline = Date.now() + 5_000;
  while (ctx.api.services.feedWaker.waiting(ctx.tenant.id) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.is(ctx.api.services.feedWaker.waiting(ctx.tenant.id), 0, 'closed streams released their places');
});

test('past FEED_MAX_WAITERS_PER_TENANT open streams and long-polls, one more is a 429 with Retry-After; other tenants are not affected', async (ctx) => {
  const base = `${ctx.api.url}/v1/events/stream`;
  const auth = { authorization: `Bearer ${ctx.auditor.token}` };
  const streams = [];
  for (let i = 0; i < MAX_WAITERS; i++) streams.push(await openSse(base, auth));
  assert.equal(streams.map((s) => s.status), [200, 200, 200]);
  const refused = await openSse(base, auth);
  assert.is(refused.status, 429, refused.errorText);
  assert.ok(refused.headers.get('retry-after'));
  assert.is(JSON.parse(refused.errorText).code, 'rate_limited');
  const head = (await get(ctx, ctx.auditor, '/v1/events')).body.data.nextCursor;
  assert.is((await get(ctx, ctx.auditor, `/v1/events?after=${head}&wait=5`)).status, 429, 'a long-poll that would wait');
  assert.is((await get(ctx, ctx.auditor, `/v1/events?after=${head}`)).status, 200, 'a read that does not wait is not counted');
  const other = await openSse(base, { authorization: `Bearer ${ctx.otherAuditor.token}` });
  assert.is(other.status, 200, 'another tenant has places of its own');
  await other.close();
  await streams.pop()!.close();
  const deadline = Date.now() + 5_000;
  while (ctx.api.services.feedWaker.waiting(ctx.tenant.id) >= MAX_WAITERS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const again = await openSse(base, auth);
  assert.is(again.status, 200, 'a released place is free again');
  await again.close();
  for (const s of streams) await s.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Across a kill -9: the API as a child process (as crash-retry.e2e.spec.ts runs it).


test('SSE resumes from Last-Event-ID across a kill -9 of the server: nothing lost, nothing repeated', async (ctx) => {
  const { knex, pgPool } = ctx.api.services;
  const server = new ChildServer(await freePort(), { FEED_HEARTBEAT_MS: String(HEARTBEAT_MS) });
  const received: string[] = [];
  const inserted: string[] = ofTenant(ctx, ctx.tenant.id);
  const auth = { authorization: `Bearer ${ctx.auditor.token}`, 'x-service-tenant': ctx.tenant.slug };
  try {
    await server.start();
    let lastId: string | undefined;
    for (let life = 0; life < 3; life++) {
      const stream = await openSse(`${server.url}/v1/events/stream`, lastId ? { ...auth, 'last-event-id': lastId } : auth);
      assert.is(stream.status, 200, stream.errorText);
      // Live events while it runs, then the stream dies with the server mid-flight.
      for (let i = 0; i < 3; i++) inserted.push((await insertPublicEvent(knex, pgPool, { tenant: ctx.tenant.id, type: `pool.life${life}` })).id);
      await stream.waitFor(() => stream.events.length > 0 && JSON.parse(stream.events.at(-1)!.data!).id === inserted.at(-1), 'the live events', 15_000);
      await server.kill();
      await stream.waitFor(() => stream.ended, 'the stream to end');
      received.push(...stream.events.map((e) => JSON.parse(e.data!).id as string));
      lastId = stream.events.at(-1)?.id ?? lastId;
      // Events committed while the server is down are read after the restart.
      for (let i = 0; i < 2; i++) inserted.push((await insertPublicEvent(knex, pgPool, { tenant: ctx.tenant.id, type: `pool.down${life}` })).id);
      await server.start();
    }
    const last = await openSse(`${server.url}/v1/events/stream`, { ...auth, 'last-event-id': lastId! });
    await last.waitFor(() => last.events.length > 0 && JSON.parse(last.events.at(-1)!.data!).id === inserted.at(-1), 'the events of the last downtime');
    received.push(...last.events.map((e) => JSON.parse(e.data!).id as string));
    await last.close();
    assert.is(new Set(received).size, received.length, 'no event twice');
    assert.equal(received, inserted, 'every event, in order');
  } finally {
    await server.kill();
  }
});

test.run();
