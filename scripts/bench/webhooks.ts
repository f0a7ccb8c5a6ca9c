import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { deleteKeysWithPrefix } from '@cagnotte/infra';
import { PUBLIC_EVENTS_TABLE, toPublicEvent, type PublicEventRow } from '@cagnotte/read-models';
import { fmtMs, fmtRate, freshDatabase, latency, nowMs, type Latency, type SummaryRow } from './lib';
import { startServer, stopServer } from './http';
import { createEndpoints, deliveryRuntime, describeIdle, describeThroughput, runIdle, runQueueBaseline, runThroughput } from './webhooks-delivery';
import { describeFeed, runFeed, type FeedResult } from './webhooks-feed';
import { benchPool, benchServices, organiserSession, ProjectionWatch, sleep, startReceiver, type Receiver } from './webhooks-setup';

/**
 * `pnpm bench -- --only webhooks`: events out, on the bench database.
 * 1. Deliveries per second: `events` public events fanned out to `endpoints` endpoints of a local receiver (a child
 *    process), from the moment they are in the feed to the moment the receiver has them all; baseline: plain POSTs of
 *    the same bodies from this process to the same receiver, at the delivery's concurrency, on keep-alive sockets.
 * 2. Commit-to-delivery delay at idle: one event appended at a time through the event store, projected, dispatched and
 *    delivered; from the append's return to the receipt (p50, p99).
 * 3. Feed reads per second with `consumers` long-polls while events are appended at `rate` per second, and the delay
 *    from the append's return to the long-poll's answer; baseline: GET /health and a bare express route.
 */

export interface WebhooksOptions {
  url: string;
  events: number;
  endpoints: number;
  idleEvents: number;
  consumers: number;
  rate: number;
  seconds: number;
  concurrency: number;
}

const TARGET_DELIVERIES_PER_SECOND = 1_000;
const TARGET_IDLE_P99_MS = 1_000;

export interface PostsResult {
  posts: number;
  seconds: number;
  perSecond: number;
  latency: Latency;
  errors: number;
}

/**
 * The baseline of part 1: every body POSTed once to each path, `concurrency` at a time, on keep-alive sockets or not as
 * the delivery does (what a delivery worker would do with nothing to look up, sign or record).
 */
export const plainPosts = async (port: number, bodies: string[], paths: string[], concurrency: number, keepAlive: boolean): Promise<PostsResult> => {
  const agent = new http.Agent({ keepAlive, maxSockets: concurrency });
  const jobs = paths.flatMap((p) => bodies.map((body, i) => ({ path: p, body, id: String(i) })));
  const samples: number[] = [];
  let next = 0;
  let errors = 0;
  const post = (job: (typeof jobs)[number]) =>
    new Promise<boolean>((resolve) => {
      const req = http.request(
        { agent, host: '127.0.0.1', port, path: job.path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(job.body), 'x-bench-id': job.id } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200));
        },
      );
      req.setTimeout(15_000, () => req.destroy(new Error('timeout')));
      req.on('error', () => resolve(false));
      req.end(job.body);
    });
  const started = nowMs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const t = nowMs();
        if (!(await post(job))) errors++;
        samples.push(nowMs() - t);
      }
    }),
  );
  const seconds = (nowMs() - started) / 1000;
  agent.destroy();
  return { posts: jobs.length, seconds, perSecond: jobs.length / seconds, latency: latency(samples), errors };
};

export const runWebhooks = async (o: WebhooksOptions): Promise<{ rows: SummaryRow[]; details: Record<string, unknown> }> => {
  await freshDatabase(o.url);
  const redisPrefix = `bench:webhooks:${randomUUID()}:`;
  const app = await startServer('app', { BENCH_SERVER_DATABASE_URL: o.url, REDIS_KEY_PREFIX: redisPrefix });
  const baseline = await startServer('baseline', {});
  let receiver: Receiver | null = null;
  const services = await benchServices(o.url, redisPrefix);
  const rows: SummaryRow[] = [];
  const details: Record<string, unknown> = {};
  const row = (metric: string, measured: string, base: string, target = '', pass: boolean | null = null, raw: Record<string, unknown> = {}): SummaryRow => ({
    part: 'webhooks',
    metric,
    measured,
    baseline: base,
    target,
    pass,
    raw,
  });
  try {
    receiver = await startReceiver();
    const organiser = await organiserSession(services, app.port);
    const pool = await benchPool(services, organiser);

    console.log('\n## Webhooks');
    // 3 first: the feed, before any endpoint exists (so no delivery runs beside it).
    const watch = await ProjectionWatch.open(services);
    let feed: FeedResult;
    try {
      feed = await runFeed({ port: app.port, baselinePort: baseline.port, app: app.child, organiser, pool, watch, consumers: o.consumers, rate: o.rate, seconds: o.seconds });
    } finally {
      await watch.close();
    }
    details.feed = feed;
    console.log('\n### Feed: GET /v1/events long-polls');
    for (const line of describeFeed(feed)) console.log(line);

    // 1 and 2: deliveries to the receiver, then the delay at idle.
    const runtime = await deliveryRuntime(services);
    const concurrency = runtime?.concurrency ?? o.concurrency;
    const keepAlive = runtime?.keepAlive ?? true;
    const bodies = await sampleBodies(services, organiser.tenantId, o.events);
    const paths = Array.from({ length: o.endpoints }, (_, i) => `/hooks/${i}`);
    await plainPosts(receiver.port, bodies.slice(0, 200), paths, concurrency, keepAlive); // warm-up
    receiver.reset();
    const posts = await plainPosts(receiver.port, bodies, paths, concurrency, keepAlive);
    receiver.reset();
    details.plainPosts = posts;
    console.log('\n### Deliveries to a local receiver (a child process answering 200)');
    console.log(
      `Baseline: ${posts.posts} plain POSTs (${bodies.length} public event bodies × ${o.endpoints} receiver paths, ${concurrency} at a time, ${keepAlive ? 'keep-alive' : 'a connection each'}): ${fmtRate(posts.perSecond)} (p50 ${fmtMs(posts.latency.p50)}, p99 ${fmtMs(posts.latency.p99)}, errors ${posts.errors}).`,
    );
    const deliveriesMetric = `deliveries/s, ${o.events} events × ${o.endpoints} endpoints`;
    const idleMetric = `commit → delivery at idle, ${o.idleEvents} events × ${o.endpoints} endpoints`;
    if (!runtime) {
      console.log('No delivery worker on this branch: parts 1 and 2 not measured.');
      rows.push(row(deliveriesMetric, 'n/a (no delivery worker)', fmtRate(posts.perSecond, ' POST/s'), `≥ ${TARGET_DELIVERIES_PER_SECOND}/s`, null, { posts }));
      rows.push(row(idleMetric, 'n/a (no delivery worker)', '', `p99 < ${TARGET_IDLE_P99_MS} ms`, null));
    } else {
      const queue = await runQueueBaseline(services, o.events * o.endpoints, concurrency);
      details.queueBaseline = queue;
      console.log(`Baseline: the queue alone, ${queue.jobs} no-op jobs queued as the dispatcher queues them and run ${concurrency} at a time: ${fmtRate(queue.perSecond)} (${queue.seconds.toFixed(2)} s).`);
      console.log(`Delivery: ${runtime.describe}.`);
      await createEndpoints(app.port, organiser, receiver.port, o.endpoints);
      const t = await runThroughput(services, organiser, pool, receiver, runtime, o.events, o.endpoints);
      details.throughput = t;
      console.log(describeThroughput(t, posts.perSecond));
      const idle = await runIdle(organiser, pool, receiver, runtime, o.idleEvents, o.endpoints);
      details.idle = idle;
      console.log(describeIdle(idle));
      rows.push(
        row(deliveriesMetric, fmtRate(t.perSecond), `${fmtRate(posts.perSecond, ' POST/s')} (plain, ${concurrency} at a time); no-op jobs ${fmtRate(queue.perSecond)}`, `≥ ${TARGET_DELIVERIES_PER_SECOND}/s`, t.complete && t.perSecond >= TARGET_DELIVERIES_PER_SECOND, { ...t }),
        row(idleMetric, `p50 ${fmtMs(idle.delay.p50)}, p99 ${fmtMs(idle.delay.p99)}`, `plain POST p50 ${fmtMs(posts.latency.p50)}`, `p99 < ${TARGET_IDLE_P99_MS} ms`, idle.timeouts === 0 && idle.delay.p99 < TARGET_IDLE_P99_MS, { ...idle }),
      );
    }
    rows.push(
      row(`feed reads/s, ${o.consumers} long-polls, ${o.rate} appends/s`, fmtRate(feed.readsPerSecond, ' reads/s'), `${fmtRate(feed.baselineHealth.achievedRps, ' GET /health/s')}; bare express ${fmtRate(feed.baselineExpress.achievedRps, ' req/s')}`, '', null, {
        readsPerSecond: feed.readsPerSecond,
        eventsPerSecond: feed.eventsPerSecond,
      }),
      row(`feed commit → long-poll answer, ${o.consumers} long-polls`, `p50 ${fmtMs(feed.delay.p50)}, p99 ${fmtMs(feed.delay.p99)}`, `GET /health p50 ${fmtMs(feed.baselineHealth.latency.p50)}, p99 ${fmtMs(feed.baselineHealth.latency.p99)}`, '', null, {
        delay: feed.delay,
        missing: feed.missing,
      }),
    );
  } finally {
    await receiver?.stop();
    await services.close();
    await stopServer(baseline.child);
    await stopServer(app.child);
    // The run's queues and completed jobs (deliveries, the no-op baseline, the app's rate-limit counters).
    await deleteKeysWithPrefix(services.config.REDIS_URL, redisPrefix).catch(() => undefined);
  }
  return { rows, details };
};

/**
 * Public event bodies as a delivery sends them: the feed's own rows when there are enough, else its first row
 * repeated (the bodies of one tenant's pool updates differ by little more than their ids).
 */
const sampleBodies = async (services: Awaited<ReturnType<typeof benchServices>>, tenantId: string, count: number): Promise<string[]> => {
  for (let i = 0; i < 100; i++) {
    const rows = (await services.knex(PUBLIC_EVENTS_TABLE).where({ tenant_id: tenantId }).select('*').limit(count)) as PublicEventRow[];
    if (rows.length > 0) return Array.from({ length: count }, (_, k) => JSON.stringify(toPublicEvent(rows[k % rows.length]!)));
    await sleep(50);
  }
  throw new Error('no public event in the feed: is the public-events projection running in the app?');
};

