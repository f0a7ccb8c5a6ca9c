import http from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { closedLoop, type LoadResult } from './loadgen';
import { fmtMs, fmtRate, latency, machineCpu, type Latency } from './lib';
import { serverStats, type ServerStats } from './http';
import { ProjectionWatch, sleep, wallMs, type BenchPool, type Organiser } from './webhooks-setup';

/**
 * Part 3 of the webhooks benchmark: `consumers` long-polls of GET /v1/events?wait=30 through the real HTTP app (a child
 * process, projectors in it), each reading on from its own cursor, while this process appends one pool update at a
 * time at `rate` per second through the event store. Each public event reaches every consumer: the delay runs from
 * the append's return to the answer that carries it. The baseline: GET /health of the same app (PostgreSQL, Redis and
 * the projections' lag, a handful of queries) and a bare express route, closed loop at the same concurrency.
 */

export interface FeedOptions {
  port: number;
  baselinePort: number;
  app: ChildProcess;
  organiser: Organiser;
  pool: BenchPool;
  /** Watches the projection's commits (a LISTEN connection of the bench process). */
  watch: ProjectionWatch;
  consumers: number;
  rate: number;
  seconds: number;
}

export interface FeedResult {
  consumers: number;
  appendRate: number;
  appended: number;
  seconds: number;
  /** Long-poll answers per second (with events or not) and those that carried events. */
  readsPerSecond: number;
  readsWithEventsPerSecond: number;
  /** Events received per second, all consumers together. */
  eventsPerSecond: number;
  eventsPerRead: number;
  /** Delay from the append's return to the long-poll answer carrying the event, every (consumer, event). */
  delay: Latency;
  /** Of which: from the append's return to the projection's NOTIFY (the event in the feed), per event. */
  projection: Latency;
  missing: number;
  errors: Record<string, number>;
  cpu: ReturnType<ReturnType<typeof machineCpu>>;
  server: ServerStats | null;
  baselineHealth: LoadResult;
  baselineExpress: LoadResult;
}

interface Page {
  items: Array<{ id: string }>;
  nextCursor: string | null;
}

const get = (agent: http.Agent, port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = http.request({ agent, host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(40_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });

/** The cursor after the last event of the feed as the organiser sees it (reads pages until one is empty). */
const headCursor = async (agent: http.Agent, o: FeedOptions): Promise<{ cursor: string | null; ids: string[] }> => {
  let cursor: string | null = null;
  const ids: string[] = [];
  for (;;) {
    const r = await get(agent, o.port, `/v1/events?limit=500${cursor ? `&after=${cursor}` : ''}`, o.organiser.auth);
    if (r.status !== 200) throw new Error(`GET /v1/events: ${r.status} ${r.body.slice(0, 300)}`);
    const page = (JSON.parse(r.body) as { data: Page }).data;
    if (page.items.length === 0) return { cursor, ids };
    ids.push(...page.items.map((i) => i.id));
    cursor = page.nextCursor;
  }
};

class Consumers {
  private stopped = false;
  private readonly agent: http.Agent;
  readonly received = new Map<string, number[]>(); // public event id → receipt times, one per consumer
  reads = 0;
  readsWithEvents = 0;
  items = 0;
  readonly errors: Record<string, number> = {};
  private loops: Promise<void>[] = [];

  constructor(
    private readonly o: FeedOptions,
    start: string | null,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: o.consumers + 8 });
    this.loops = Array.from({ length: o.consumers }, () => this.loop(start));
  }

  private async loop(start: string | null): Promise<void> {
    let cursor = start;
    while (!this.stopped) {
      try {
        const r = await get(this.agent, this.o.port, `/v1/events?wait=30&limit=500${cursor ? `&after=${cursor}` : ''}`, this.o.organiser.auth);
        const at = wallMs();
        if (this.stopped) return;
        this.reads++;
        if (r.status !== 200) {
          this.errors[String(r.status)] = (this.errors[String(r.status)] ?? 0) + 1;
          await sleep(100);
          continue;
        }
        const page = (JSON.parse(r.body) as { data: Page }).data;
        if (page.items.length > 0) this.readsWithEvents++;
        this.items += page.items.length;
        for (const item of page.items) {
          const times = this.received.get(item.id);
          if (times) times.push(at);
          else this.received.set(item.id, [at]);
        }
        cursor = page.nextCursor ?? cursor;
      } catch (e) {
        if (this.stopped) return;
        const kind = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
        this.errors[kind] = (this.errors[kind] ?? 0) + 1;
        await sleep(100);
      }
    }
  }

  resetCounters(): void {
    this.reads = 0;
    this.readsWithEvents = 0;
    this.items = 0;
  }

  /** Resolves when every consumer has every one of `ids`, or after `timeoutMs`. */
  async allHave(ids: string[], timeoutMs: number): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      if (ids.every((id) => (this.received.get(id)?.length ?? 0) >= this.o.consumers)) return true;
      await sleep(20);
    }
    return false;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.agent.destroy(); // ends the long-polls still held
    await Promise.allSettled(this.loops);
  }
}

export const runFeed = async (o: FeedOptions): Promise<FeedResult> => {
  const setupAgent = new http.Agent({ keepAlive: true });
  let head = await headCursor(setupAgent, o);
  // The app's projection writes the pool's first events a moment after their append.
  for (let i = 0; i < 200 && !o.pool.firstIds.every((id) => head.ids.includes(id)); i++) {
    await sleep(50);
    head = await headCursor(setupAgent, o);
  }
  if (head.ids.length === 0) throw new Error('the feed is empty: is the public-events projection running in the app?');
  setupAgent.destroy();
  const consumers = new Consumers(o, head.cursor);
  try {
    // Warm-up, not recorded: every consumer opens its socket and answers a few events (JIT, pools, plans).
    for (let i = 0; i < 5; i++) {
      const { ids } = await o.pool.update();
      if (!(await consumers.allHave(ids, 30_000))) throw new Error('warm-up: the consumers did not all get an event within 30 s');
    }
    await sleep(200);
    consumers.resetCounters();
    await serverStats(o.app);
    const cpu = machineCpu();
    const appendedAt = new Map<string, number>();
    const started = wallMs();
    const total = Math.round(o.rate * o.seconds);
    const interval = 1000 / o.rate;
    for (let k = 0; k < total; k++) {
      const due = started + k * interval;
      const wait = due - wallMs();
      if (wait > 0) await sleep(wait);
      const { ids, at } = await o.pool.update();
      o.watch.await(ids);
      appendedAt.set(ids[0]!, at);
    }
    const ids = [...appendedAt.keys()];
    await consumers.allHave(ids, 30_000);
    const elapsed = (wallMs() - started) / 1000;
    const usage = cpu();
    const server = await serverStats(o.app);
    const reads = consumers.reads;
    const readsWithEvents = consumers.readsWithEvents;
    const items = consumers.items;
    const delays: number[] = [];
    const projection = ids.filter((id) => o.watch.seenAt.has(id)).map((id) => o.watch.seenAt.get(id)! - appendedAt.get(id)!);
    let missing = 0;
    for (const id of ids) {
      const times = consumers.received.get(id) ?? [];
      missing += Math.max(0, o.consumers - times.length);
      for (const t of times) delays.push(t - appendedAt.get(id)!);
    }
    await consumers.stop();

    // Baselines on the same app and machine, same concurrency, same seconds.
    const baselineHealth = await closedLoop({ port: o.port, paths: ['/health'], headers: {} }, o.consumers, o.seconds);
    await closedLoop({ port: o.baselinePort, paths: ['/api/pools/x'], headers: {} }, o.consumers, 1);
    const baselineExpress = await closedLoop({ port: o.baselinePort, paths: ['/api/pools/x'], headers: {} }, o.consumers, o.seconds);
    return {
      consumers: o.consumers,
      appendRate: o.rate,
      appended: ids.length,
      seconds: elapsed,
      readsPerSecond: reads / elapsed,
      readsWithEventsPerSecond: readsWithEvents / elapsed,
      eventsPerSecond: items / elapsed,
      eventsPerRead: readsWithEvents > 0 ? items / readsWithEvents : 0,
      delay: latency(delays),
      projection: latency(projection),
      missing,
      errors: { ...consumers.errors },
      cpu: usage,
      server,
      baselineHealth,
      baselineExpress,
    };
  } finally {
    await consumers.stop();
  }
};

export const describeFeed = (r: FeedResult): string[] => [
  `${r.consumers} long-polls (GET /v1/events?wait=30, an organiser's session), ${r.appended} pool updates appended at ${r.appendRate}/s over ${r.seconds.toFixed(1)} s.`,
  `Reads ${fmtRate(r.readsPerSecond)} (with events ${fmtRate(r.readsWithEventsPerSecond)}, ${r.eventsPerRead.toFixed(2)} events each); events received ${fmtRate(r.eventsPerSecond)}; commit → answer p50 ${fmtMs(r.delay.p50)}, p99 ${fmtMs(r.delay.p99)}, max ${fmtMs(r.delay.max)} (of which commit → in the feed, the projection's NOTIFY: p50 ${fmtMs(r.projection.p50)}, p99 ${fmtMs(r.projection.p99)}); missing ${r.missing}; errors ${Object.keys(r.errors).length === 0 ? '0' : JSON.stringify(r.errors)}.`,
  `CPU: app ${r.server ? `${r.server.cpuPercent}%` : 'n/a'} of one core, this process ${r.cpu.selfPercent}%, machine ${r.cpu.machineBusyPercent}% of all cores; app event-loop delay p99 ${r.server ? fmtMs(r.server.eventLoopDelayMs.p99) : 'n/a'}.`,
  `Baseline GET /health of the app, ${r.consumers} concurrent: ${fmtRate(r.baselineHealth.achievedRps, ' req/s')} (p50 ${fmtMs(r.baselineHealth.latency.p50)}, p99 ${fmtMs(r.baselineHealth.latency.p99)}, errors ${r.baselineHealth.errors}); bare express: ${fmtRate(r.baselineExpress.achievedRps, ' req/s')} (p50 ${fmtMs(r.baselineExpress.latency.p50)}, p99 ${fmtMs(r.baselineExpress.latency.p99)}).`,
];
