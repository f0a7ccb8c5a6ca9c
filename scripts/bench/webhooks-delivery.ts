import { randomUUID } from 'node:crypto';
import type { Services } from '@cagnotte/infra';
import { PUBLIC_EVENTS_TABLE } from '@cagnotte/read-models';
import { fmtMs, fmtRate, latency, machineCpu, type Latency } from './lib';
import { json } from './http';
import { sleep, wallMs, type BenchPool, type Organiser, type Receiver } from './webhooks-setup';

/**
 * Parts 1 and 2 of the webhooks benchmark: the delivery side (dispatcher + delivery jobs) started and stopped here
 * through a `DeliveryRuntime`, the endpoints created through POST /v1/webhooks, the receiver a child process.
 */

/** The delivery side as the bench drives it: started once the feed holds the events, stopped before the next run. */
export interface DeliveryRuntime {
  /** How it runs, for the report (where the dispatcher and the jobs run, how many at a time, keep-alive or not). */
  describe: string;
  /** How many deliveries the worker runs at a time: the baseline POSTs at the same concurrency. */
  concurrency: number;
  /** Whether its requests reuse connections: the baseline does as it does. */
  keepAlive: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ThroughputResult {
  events: number;
  endpoints: number;
  deliveries: number;
  /** Appending the events and the projection writing them into the feed (not counted in the rate). */
  feedFillSeconds: number;
  /** From the runtime's start (the events all in the feed) to the last receipt. */
  seconds: number;
  perSecond: number;
  received: number;
  duplicates: number;
  complete: boolean;
  /** From the start until the dispatcher had recorded every (endpoint, event) as a pending delivery. */
  dispatchSeconds: number | null;
  /** webhook_attempts of the run: how many, and the POST's own time as the worker measured it (ms). */
  attempts: { count: number; latencyP50Ms: number; latencyP99Ms: number };
  cpu: ReturnType<ReturnType<typeof machineCpu>>;
}

export interface IdleResult {
  events: number;
  endpoints: number;
  /** From the append's return to the receipt, every (endpoint, event). */
  delay: Latency;
  timeouts: number;
}

export interface QueueResult {
  jobs: number;
  seconds: number;
  perSecond: number;
}

/**
 * A second baseline of part 1: the queue alone. `count` no-op jobs through the same JobQueue (bullmq on the same
 * Redis), queued as the dispatcher queues (a batch's jobs at once) while one worker runs them at the same concurrency:
 * what one job per delivery costs before any SQL, signing or HTTP. The jobs stay in Redis like any completed job.
 */
export const runQueueBaseline = async (services: Services, count: number, concurrency: number): Promise<QueueResult> => {
  const queue = `bench-noop-${randomUUID().slice(0, 8)}`;
  let handled = 0;
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((r) => (resolveDone = r));
  const started = wallMs();
  const worker = services.jobs.startWorker<{ n: number }>(
    queue,
    async () => {
      if (++handled === count) resolveDone();
    },
    { concurrency },
  );
  try {
    for (let i = 0; i < count; i += 1_500) {
      await Promise.all(Array.from({ length: Math.min(1_500, count - i) }, (_, k) => services.jobs.enqueue(queue, `job-${i + k}`, { n: i + k })));
    }
    await Promise.race([done, sleep(600_000)]);
  } finally {
    await worker.close();
  }
  const seconds = (wallMs() - started) / 1000;
  return { jobs: handled, seconds, perSecond: handled / seconds };
};

/** `count` endpoints of the organiser, each a path of the receiver, every public type. */
export const createEndpoints = async (port: number, o: Organiser, receiverPort: number, count: number): Promise<string[]> => {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = await json(port, 'POST', '/v1/webhooks', o.auth, { url: `http://127.0.0.1:${receiverPort}/hooks/${i}`, enabledEvents: ['*'], description: `bench ${i}` });
    ids.push(String(r.body.data.id));
  }
  return ids;
};

const deliveryCount = async (services: Services): Promise<number> =>
  Number(((await services.knex('webhook_deliveries').count({ n: '*' })) as Array<{ n: string }>)[0]!.n);

const feedCount = async (services: Services, tenantId: string): Promise<number> =>
  Number(((await services.knex(PUBLIC_EVENTS_TABLE).where({ tenant_id: tenantId }).count({ n: '*' })) as Array<{ n: string }>)[0]!.n);

/**
 * Part 1: with the delivery stopped, `events` pool updates (100 per append) until the feed holds them all; then the
 * delivery starts and the clock runs until the receiver has every (endpoint, event).
 */
export const runThroughput = async (services: Services, o: Organiser, pool: BenchPool, receiver: Receiver, runtime: DeliveryRuntime, events: number, endpoints: number): Promise<ThroughputResult> => {
  receiver.reset();
  const before = await feedCount(services, o.tenantId);
  const fillStart = wallMs();
  for (let i = 0; i < events; i += 100) await pool.update(Math.min(100, events - i));
  while ((await feedCount(services, o.tenantId)) < before + events) await sleep(20);
  const feedFillSeconds = (wallMs() - fillStart) / 1000;
  const deliveries = events * endpoints;
  const cpu = machineCpu();
  const started = wallMs();
  await runtime.start();
  const deliveriesBefore = await deliveryCount(services);
  let dispatchSeconds: number | null = null;
  const reached = receiver.reached(deliveries, 600_000);
  let finished = false;
  void reached.then(() => (finished = true));
  while (!finished && dispatchSeconds === null) {
    if ((await deliveryCount(services)) - deliveriesBefore >= deliveries) dispatchSeconds = (wallMs() - started) / 1000;
    else await sleep(50);
  }
  const at = await reached;
  const usage = cpu();
  const end = at ?? wallMs();
  const dump = await receiver.dump();
  await runtime.stop();
  const seconds = (end - started) / 1000;
  const a = (
    await services.knex.raw<{ rows: Array<{ n: string; p50: number | null; p99: number | null }> }>(
      `SELECT count(*) AS n, percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms) AS p99
         FROM webhook_attempts WHERE attempted_at >= to_timestamp(?::double precision / 1000)`,
      [started],
    )
  ).rows[0]!;
  return {
    events,
    endpoints,
    deliveries,
    feedFillSeconds,
    seconds,
    perSecond: (at === null ? dump.receipts.length : deliveries) / seconds,
    received: dump.receipts.length,
    duplicates: dump.duplicates,
    complete: at !== null,
    dispatchSeconds,
    attempts: { count: Number(a.n), latencyP50Ms: Number(a.p50 ?? NaN), latencyP99Ms: Number(a.p99 ?? NaN) },
    cpu: usage,
  };
};

/** Part 2: one update at a time, the next once every endpoint has the last (and 50 ms of quiet). */
export const runIdle = async (o: Organiser, pool: BenchPool, receiver: Receiver, runtime: DeliveryRuntime, events: number, endpoints: number): Promise<IdleResult> => {
  receiver.reset();
  await runtime.start();
  const appendedAt = new Map<string, number>();
  let timeouts = 0;
  try {
    // Warm-up, not recorded.
    for (let k = 0; k < 5; k++) {
      await pool.update();
      await receiver.reached((k + 1) * endpoints, 10_000);
    }
    await sleep(200);
    receiver.reset();
    for (let k = 0; k < events; k++) {
      const { ids, at } = await pool.update();
      appendedAt.set(ids[0]!, at);
      if ((await receiver.reached((k + 1 - timeouts) * endpoints, 10_000)) === null) timeouts++;
      await sleep(50);
    }
  } finally {
    await sleep(200);
  }
  const dump = await receiver.dump();
  await runtime.stop();
  const delays = dump.receipts.filter(([id]) => appendedAt.has(id)).map(([id, , t]) => t - appendedAt.get(id)!);
  return { events, endpoints, delay: latency(delays), timeouts };
};

export const describeThroughput = (r: ThroughputResult, baselinePerSecond: number): string =>
  `${r.events} public events × ${r.endpoints} endpoints = ${r.deliveries} deliveries: ${r.received} received in ${r.seconds.toFixed(2)} s from the delivery's start = ${fmtRate(r.perSecond)} (baseline plain POSTs ${fmtRate(baselinePerSecond)}); duplicates ${r.duplicates}${r.complete ? '' : ', INCOMPLETE (timeout)'}; the dispatcher had recorded them all after ${r.dispatchSeconds === null ? 'n/a' : `${r.dispatchSeconds.toFixed(2)} s`}; ${r.attempts.count} attempts, the POST itself p50 ${fmtMs(r.attempts.latencyP50Ms)}, p99 ${fmtMs(r.attempts.latencyP99Ms)} (whole ms, as the worker records them); filling the feed took ${r.feedFillSeconds.toFixed(2)} s (not counted); CPU this process ${r.cpu.selfPercent}%, machine ${r.cpu.machineBusyPercent}%.`;

export const describeIdle = (r: IdleResult): string =>
  `${r.events} events appended one at a time to ${r.endpoints} endpoints: append → receipt p50 ${fmtMs(r.delay.p50)}, p99 ${fmtMs(r.delay.p99)}, max ${fmtMs(r.delay.max)} (${r.delay.count} receipts${r.timeouts ? `, ${r.timeouts} waits timed out` : ''}).`;

/**
 * The delivery side as `pnpm start` runs it (startWebhooks: the `webhooks` consumer group's dispatcher, the bullmq
 * delivery workers at WEBHOOK_DELIVERY_CONCURRENCY, the sweeper), here in the bench process beside the API in its
 * child, with the bench's own services (the same database and Redis).
 */
export const deliveryRuntime = async (services: Services): Promise<DeliveryRuntime | null> => {
  const { startWebhooks } = await import('@cagnotte/command-api');
  const concurrency = services.config.WEBHOOK_DELIVERY_CONCURRENCY;
  let stop: (() => Promise<void>) | null = null;
  return {
    describe: `dispatcher (consumer group "webhooks") + bullmq delivery worker, ${concurrency} at a time (WEBHOOK_DELIVERY_CONCURRENCY), keep-alive sockets, in the bench process; the API and its projectors in a child process`,
    concurrency,
    keepAlive: true,
    start: async () => {
      stop ??= startWebhooks(services);
    },
    stop: async () => {
      const s = stop;
      stop = null;
      await s?.();
    },
  };
};
