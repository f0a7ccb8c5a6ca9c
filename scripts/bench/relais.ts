import { randomUUID } from 'node:crypto';
import { createTenant } from '@cagnotte/command-api';
import { createRedis, createServices, loadConfig, relaisGenerationKey } from '@cagnotte/infra';
import { createProjectorRunner } from '@cagnotte/projectors';
import { startServer, stopServer } from './http';
import { fmtMs, freshDatabase, machineCpu, nowMs, table, type SummaryRow } from './lib';

/** What a cached search may take, end to end through HTTP (docs/relais.md). */
const CACHED_TARGET_P95_MS = 100;

export type RelaisSummaryRow = Omit<SummaryRow, 'part'> & { part: 'relais' };

export interface RelaisOptions {
  url: string;
  /** Sequential searches per series. */
  requests: number;
  /** The sandbox carrier's injected latency: what a real carrier's answer costs. */
  latencyMs: number;
}

const lat = (samples: number[]) => {
  const s = Float64Array.from(samples).sort();
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
  return { count: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: s[s.length - 1] ?? NaN };
};

/**
 * GET /api/relais/points through HTTP against the embedded API in a child process, the sandbox carrier answering after
 * `latencyMs` (RELAIS_SANDBOX_LATENCY_MS). Cold: the directory's cache for the sandbox network is flushed (its
 * generation moves on) before each request, so every search waits for the carrier. Cached: the same search again.
 * The baseline of the run is the cold series: what the cache saves is the carrier's round trip.
 */
export const runRelais = async (o: RelaisOptions): Promise<{ rows: RelaisSummaryRow[]; details: Record<string, unknown> }> => {
  await freshDatabase(o.url);
  const prefix = `bench-relais-${randomUUID().slice(0, 8)}:`;
  const env = {
    BENCH_SERVER_DATABASE_URL: o.url,
    REDIS_KEY_PREFIX: prefix,
    RELAIS_SANDBOX_LATENCY_MS: String(o.latencyMs),
    RELAIS_SANDBOX_CARRIER: 'true',
    RATE_LIMIT_RELAIS_PER_MINUTE: '1000000',
  };
  const services = await createServices(loadConfig({ ...process.env, DATABASE_URL: o.url, LOG_LEVEL: 'silent', REDIS_KEY_PREFIX: prefix }), { migrate: false });
  const slug = `bench-${randomUUID().slice(0, 8)}`;
  try {
    const meta = { actor: { kind: 'operator' as const, id: 'bench' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() };
    await createTenant(services, { slug, whiteLabel: true, approvedOrigins: [] }, meta);
    const runner = createProjectorRunner(services);
    await runner.catchUp();
    await runner.stop();
  } finally {
    await services.close();
  }

  const redis = createRedis(process.env.REDIS_URL || 'redis://127.0.0.1:6379', prefix);
  const app = await startServer('app', env);
  try {
    const headers = { 'x-service-tenant': slug };
    const search = async (path: string) => {
      const t = nowMs();
      const res = await fetch(`http://127.0.0.1:${app.port}${path}`, { headers });
      const body = (await res.json()) as { data?: { items: unknown[]; sources: Array<{ network: string; status: string; cached?: boolean }> } };
      const ms = nowMs() - t;
      if (res.status !== 200 || !body.data) throw new Error(`GET ${path}: ${res.status}`);
      return { ms, sandbox: body.data.sources.find((s) => s.network === 'sandbox'), items: body.data.items.length };
    };
    const path = (i: number) => `/api/relais/points?postalCode=${String(69001 + (i % 50)).padStart(5, '0')}&weightG=1500`;
    for (let i = 0; i < 10; i++) await search(path(i)); // warm up: JIT, connections

    const cpu = machineCpu();
    const cold: number[] = [];
    for (let i = 0; i < o.requests; i++) {
      await redis.incr(relaisGenerationKey('sandbox'));
      const r = await search(path(i));
      if (r.sandbox?.cached || r.sandbox?.status !== 'ok') throw new Error(`cold search ${i} was not answered by the carrier: ${JSON.stringify(r.sandbox)}`);
      cold.push(r.ms);
    }
    const cached: number[] = [];
    await search(path(0));
    for (let i = 0; i < o.requests; i++) {
      const r = await search(path(0));
      if (!r.sandbox?.cached) throw new Error(`cached search ${i} missed the cache`);
      cached.push(r.ms);
    }
    const machine = cpu();
    const c = lat(cold);
    const h = lat(cached);
    console.log(`\n## Relais directory: GET /api/relais/points through HTTP (sandbox carrier latency ${o.latencyMs} ms, ${o.requests} sequential requests per series)`);
    console.log(
      table(
        ['series', 'p50', 'p95', 'p99', 'max'],
        [
          ['cold (cache flushed before each request)', fmtMs(c.p50), fmtMs(c.p95), fmtMs(c.p99), fmtMs(c.max)],
          ['cached (the same search again)', fmtMs(h.p50), fmtMs(h.p95), fmtMs(h.p99), fmtMs(h.max)],
        ],
      ),
    );
    console.log(`Machine busy ${machine.machineBusyPercent}% during the series (the API server, PostgreSQL, Redis and this load generator share it).`);
    return {
      rows: [
        { part: 'relais', metric: 'relais search p95, cached', measured: fmtMs(h.p95), baseline: `cold ${fmtMs(c.p95)}`, target: `< ${CACHED_TARGET_P95_MS} ms`, pass: h.p95 < CACHED_TARGET_P95_MS, raw: { cached: h, cold: c } },
        { part: 'relais', metric: 'relais search p95, cold', measured: fmtMs(c.p95), baseline: `carrier ${o.latencyMs} ms`, target: '', pass: null, raw: { cold: c, latencyMs: o.latencyMs } },
      ],
      details: { latencyMs: o.latencyMs, requests: o.requests, cold: c, cached: h, machine },
    };
  } finally {
    await stopServer(app.child);
    redis.disconnect();
  }
};
