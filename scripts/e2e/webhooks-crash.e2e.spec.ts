/**
 * Issue 20, Proof: webhooks under kill -9. The whole service (projectors, the dispatcher, the delivery worker, the
 * feed) runs as a child process (`scripts/src/start.ts`) and is killed with SIGKILL at random moments while ~1,000
 * public events are being delivered to 5 endpoints of a receiver, then started again. The events are produced through
 * real commands (draft pools and their PATCHes) on a command API of this process (no projector, no delivery), so the
 * public-events projection, the dispatcher and the deliveries all live in the process that dies.
 *
 * Afterwards: every (endpoint, event) pair was received at least once (the receiver dedupes on webhook-id; the
 * duplicates at-least-once costs are counted and printed), every delivery verifies with standardwebhooks, a
 * per_subject endpoint saw each subject's events first arrive in `sequence` order, and a reader of GET /v1/events
 * that resumed from its cursor across every kill got the whole feed, nothing lost or repeated.
 *
 * Sizes: WEBHOOK_CRASH_EVENTS (default 1000), WEBHOOK_CRASH_KILLS (default 4).
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { createTenant, registerUser } from '@cagnotte/command-api';
import { call, fundingPool, startSecondCommandApi, type ApiResponse } from './harness';
import { openSse } from './public-events';
import { startReceiver, type ReceivedDelivery, type Receiver } from './webhook-receiver';
import { ChildServer, freePort } from './child-server';

const EVENTS = Number(process.env.WEBHOOK_CRASH_EVENTS ?? 1000);
const KILLS = Number(process.env.WEBHOOK_CRASH_KILLS ?? 4);
const ENDPOINTS = 5;
/** The child's delivery concurrency (its default): at most this many attempts are in flight when it dies. */
const WEBHOOK_DELIVERY_CONCURRENCY = 32;
/** Subjects (pools) the events are spread over; each pool gets one pool.created and its share of pool.updated. */
const POOLS = 20;
const DELIVERED_DEADLINE_MS = Number(process.env.WEBHOOK_CRASH_DEADLINE_MS ?? 150_000);

type Envelope = { success: boolean; data: any; code?: string };
interface PublicEvent {
  id: string;
  type: string;
  tenant: string;
  subject: string;
  sequence: number;
}

const test = suite<{ receiver: Receiver }>('e2e: webhooks and the feed across kill -9 of the server');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const meta = () => ({ actor: { kind: 'operator' as const, id: 'e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });


test.before(async (ctx) => {
  ctx.receiver = await startReceiver();
});
test.after(async (ctx) => ctx.receiver.close());

/**
 * Reads GET /v1/events from a cursor, long-polling, across the server's deaths: a failed request is tried again from
 * the same cursor. Every item it was handed, in order.
 */
const feedReader = (server: ChildServer, auth: { token: string; tenant: string }) => {
  const items: PublicEvent[] = [];
  let cursor: string | null = null;
  let stopAt: number | null = null;
  let failures = 0;
  const done = (async () => {
    while (stopAt === null || items.length < stopAt) {
      const res: ApiResponse<Envelope> | null = await call<Envelope>(server.url, 'GET', `/v1/events?limit=200&wait=2${cursor ? `&after=${cursor}` : ''}`, auth).catch(() => null);
      if (!res || res.status !== 200) {
        failures++;
        await sleep(100);
        continue;
      }
      items.push(...(res.body.data.items as PublicEvent[]));
      cursor = res.body.data.nextCursor ?? cursor;
    }
  })();
  return {
    items,
    get failures() {
      return failures;
    },
    /** Ends once it has read `n` items (the feed's final size). */
    finish: async (n: number, timeoutMs = 60_000) => {
      stopAt = n;
      await Promise.race([done, sleep(timeoutMs).then(() => Promise.reject(new Error(`the feed reader read ${items.length} of ${n} events`)))]);
    },
  };
};

/**
 * The same over GET /v1/events/stream: an EventSource-like client that reconnects with Last-Event-ID whenever the
 * stream ends (the server died). Every event it was sent, in order.
 */
const streamReader = (server: ChildServer, auth: { token: string; tenant: string }) => {
  const ids: string[] = [];
  let lastId = null as string | null;
  let stopAt: number | null = null;
  let reconnects = 0;
  const done = (async () => {
    while (stopAt === null || ids.length < stopAt) {
      const headers: Record<string, string> = { authorization: `Bearer ${auth.token}`, 'x-service-tenant': auth.tenant, ...(lastId ? { 'last-event-id': lastId } : {}) };
      const stream = await openSse(`${server.url}/v1/events/stream`, headers).catch(() => null);
      if (!stream || stream.status !== 200) {
        await stream?.close();
        await sleep(100);
        continue;
      }
      let taken = 0;
      const take = () => {
        for (; taken < stream.events.length; taken++) {
          const e = stream.events[taken]!;
          ids.push((JSON.parse(e.data ?? '{}') as { id: string }).id);
          lastId = e.id ?? lastId;
        }
      };
      while (!stream.ended && (stopAt === null || ids.length < stopAt)) {
        take();
        await sleep(50);
      }
      await stream.close();
      take();
      reconnects++;
    }
  })();
  return {
    ids,
    get reconnects() {
      return reconnects;
    },
    finish: async (n: number, timeoutMs = 60_000) => {
      stopAt = n;
      await Promise.race([done, sleep(timeoutMs).then(() => Promise.reject(new Error(`the stream reader read ${ids.length} of ${n} events`)))]);
    },
  };
};

test('kill -9 while 1,000 events go to 5 endpoints: every (endpoint, event) pair arrives at least once, verified; the feed resumes from its cursor with nothing lost or repeated', async (ctx) => {
  const started = Date.now();
  const run = randomUUID().slice(0, 8);
  const slug = `hooks-crash-${run}`;
  // The commands' side: a command API of this process (no projector, no delivery): it lives through every kill.
  const commands = await startSecondCommandApi();
  const server = new ChildServer(await freePort(), {
    DEFAULT_TENANT: `${slug}-default`,
    // Failures here are the sender's own deaths, not the receiver's: keep any retry short.
    WEBHOOK_RETRY_SCHEDULE_MS: '0,200,500,1000,2000',
    WEBHOOK_DELIVERY_CONCURRENCY: String(WEBHOOK_DELIVERY_CONCURRENCY),
  });
  const receiver = ctx.receiver;
  // A receiver a little slow to answer, so that deliveries are in flight when the server dies.
  for (let i = 0; i < ENDPOINTS; i++) receiver.answer(`/crash-${i}`, () => ({ status: 200, delayMs: Math.random() < 0.2 ? 20 : 0 }));

  try {
    await server.start();
    const { tenant } = await createTenant(commands.services, { slug, whiteLabel: true, approvedOrigins: [] }, meta());
    const email = `${run}@example.test`;
    const password = 'correct horse battery';
    await registerUser(
      commands.services,
      { tenantId: tenant.tenantId, email, password, phone: null, displayName: 'Crash Org', role: 'organiser', accountType: 'CONSUMER', signupSource: 'e2e' },
      meta(),
    );
    // The child projects the account: log in once it has.
    let token = '';
    const loginDeadline = Date.now() + 60_000;
    while (!token) {
      const login = await call<{ data: { token: string } }>(commands.url, 'POST', '/api/auth/login/password', { tenant: slug, body: { email, password } });
      if (login.status === 200) token = login.body.data.token;
      else if (Date.now() > loginDeadline) throw new Error(`login: ${login.status} ${login.text}`);
      else await sleep(200);
    }
    const auth = { token, tenant: slug };
    const cmd = (method: string, path: string, body?: unknown) => call<Envelope>(commands.url, method, path, { ...auth, body, headers: { 'idempotency-key': randomUUID() } });

    const endpoints: Array<{ id: string; secret: string; path: string; ordering: string }> = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const ordering = i < 2 ? 'per_subject' : 'none';
      const res = await cmd('POST', '/v1/webhooks', { url: `${receiver.url}/crash-${i}`, enabledEvents: ['*'], ordering });
      assert.is(res.status, 201, res.text);
      endpoints.push({ id: res.body.data.id, secret: res.body.data.secret, path: `/crash-${i}`, ordering });
    }
    const reader = feedReader(server, auth);
    const streamed = streamReader(server, auth);

    // Production: POOLS pools, then PATCHes on each (one writer per pool: no conflicts) up to EVENTS public events.
    let productionMs = 0;
    const production = (async () => {
      const pools: string[] = [];
      for (let i = 0; i < POOLS; i++) {
        const res = await cmd('POST', '/api/pools', fundingPool({ title: `crash ${run} ${i}` }));
        assert.is(res.status, 201, res.text);
        pools.push(res.body.data.id);
      }
      const perPool = Math.ceil((EVENTS - POOLS) / POOLS);
      await Promise.all(
        pools.map(async (poolId, p) => {
          for (let n = 0; n < perPool && POOLS + p * perPool + n < EVENTS; n++) {
            const res = await cmd('PATCH', `/api/pools/${poolId}`, { title: `crash ${run} ${p}.${n}` });
            assert.is(res.status, 200, res.text);
              }
        }),
      );
      productionMs = Date.now() - started;
    })();

    // Kills: each life of the server delivers its share, then dies at a random moment while delivering.
    const pairs = EVENTS * ENDPOINTS;
    const share = Math.floor(pairs / (KILLS + 2));
    let kills = 0;
    const killTimes: number[] = [];
    /** When each kill was sent and when the process was gone (ms since the epoch). */
    const killWindows: Array<{ sent: number; gone: number }> = [];
    for (let k = 0; k < KILLS; k++) {
      const before = receiver.deliveries.length;
      const lifeDeadline = Date.now() + 30_000;
      while (receiver.deliveries.length < before + share * (0.5 + Math.random()) && Date.now() < lifeDeadline) await sleep(20);
      const sent = Date.now();
      await server.kill();
      killWindows.push({ sent, gone: Date.now() });
      kills++;
      killTimes.push(sent - started);
      await server.start();
    }
    await production;

    // The reference: the organiser's whole feed, read at the end.
    const feed: PublicEvent[] = [];
    for (let cursor: string | null = null; ; ) {
      const page: ApiResponse<Envelope> = await call<Envelope>(server.url, 'GET', `/v1/events?limit=500${cursor ? `&after=${cursor}` : ''}`, auth);
      assert.is(page.status, 200, page.text);
      if (page.body.data.items.length === 0) break;
      feed.push(...page.body.data.items);
      cursor = page.body.data.nextCursor;
      if (feed.length > EVENTS * 2) break;
    }
    assert.is(feed.length, EVENTS, 'the feed holds every event produced');
    assert.is(new Set(feed.map((e) => e.id)).size, EVENTS);

    // Every (endpoint, event) pair at least once.
    const missing = () =>
      endpoints.reduce((n, e) => {
        const got = new Set(receiver.on(e.path).map((d) => d.id));
        return n + feed.filter((ev) => !got.has(ev.id)).length;
      }, 0);
    const deadline = Date.now() + DELIVERED_DEADLINE_MS;
    let left = missing();
    while (left > 0 && Date.now() < deadline) {
      await sleep(500);
      left = missing();
    }
    const deliveredMs = Date.now() - started;
    await reader.finish(feed.length);
    await streamed.finish(feed.length);

    // What arrived, per endpoint: distinct ids, duplicates (the receiver dedupes them on webhook-id), strays.
    const feedIds = new Set(feed.map((e) => e.id));
    const bySeq = new Map(feed.map((e) => [e.id, e]));
    let duplicates = 0;
    /** Duplicates with no kill between the two arrivals: sent twice without a crash to excuse it. */
    let unexcused = 0;
    let strays = 0;
    let unverified = 0;
    let outOfOrder = 0;
    for (const e of endpoints) {
      const got = receiver.on(e.path);
      const seen = new Map<string, ReceivedDelivery>();
      const lastSeq = new Map<string, number>();
      const hook = new Webhook(e.secret);
      for (const d of got) {
        if (!feedIds.has(d.id)) strays++;
        if (!verifies(hook, d)) unverified++;
        const previous = seen.get(d.id);
        if (previous) {
          duplicates++;
          // At-least-once allows a second send only of an attempt a kill cut short: in flight when the kill came.
          if (!killWindows.some((k) => previous.at <= k.gone + 200 && d.at >= k.sent)) unexcused++;
          seen.set(d.id, d);
          continue;
        }
        seen.set(d.id, d);
        const ev = bySeq.get(d.id);
        if (e.ordering === 'per_subject' && ev) {
          if ((lastSeq.get(ev.subject) ?? -1) > ev.sequence) outOfOrder++;
          lastSeq.set(ev.subject, ev.sequence);
        }
      }
    }
    const readerIds = reader.items.map((e) => e.id);
    const readerDuplicates = readerIds.length - new Set(readerIds).size;
    console.log(
      `    kill -9 × ${kills} (at ${killTimes.map((t) => `${(t / 1000).toFixed(1)} s`).join(', ')}; ${server.starts} starts): ${feed.length} events × ${ENDPOINTS} endpoints = ${pairs} pairs; ` +
        `${receiver.deliveries.length} deliveries, ${duplicates} duplicates (deduped on webhook-id; ${unexcused} without a kill between), ${left} pairs missing, ${strays} strays, ${unverified} unverified, ${outOfOrder} out of order (per_subject); ` +
        `produced by ${(productionMs / 1000).toFixed(1)} s, all delivered by ${(deliveredMs / 1000).toFixed(1)} s (${((deliveredMs - (killTimes.at(-1) ?? 0)) / 1000).toFixed(1)} s after the last kill: lost attempts wait for their lease and the sweeper); feed reader: ${reader.items.length} read, ${readerDuplicates} repeated, ${reader.failures} failed requests; SSE: ${streamed.ids.length} read, ${streamed.ids.length - new Set(streamed.ids).size} repeated, ${streamed.reconnects} reconnections`,
    );
    assert.ok(kills >= KILLS, 'the server was killed as planned');
    assert.is(left, 0, 'every (endpoint, event) pair delivered at least once');
    assert.is(strays, 0, 'nothing but the organiser’s events');
    assert.is(unexcused, 0, 'a delivery is sent again only across a kill (its first attempt was in flight)');
    assert.ok(duplicates <= kills * WEBHOOK_DELIVERY_CONCURRENCY, `at most the attempts in flight at each kill are sent twice (${duplicates})`);
    assert.is(unverified, 0, 'every delivery verifies with standardwebhooks');
    assert.is(outOfOrder, 0, 'per_subject: first arrivals in sequence order');
    assert.equal(readerIds, feed.map((e) => e.id), 'the feed read across the kills is the whole feed, in order, once');
    assert.equal(streamed.ids, feed.map((e) => e.id), 'the stream resumed from Last-Event-ID across the kills: the whole feed, in order, once');
  } finally {
    await server.kill('SIGTERM');
  }
});

const verifies = (hook: Webhook, d: ReceivedDelivery) => {
  try {
    hook.verify(d.body, { 'webhook-id': d.id, 'webhook-timestamp': d.timestamp, 'webhook-signature': d.signature });
    return true;
  } catch {
    return false;
  }
};

test.run();
