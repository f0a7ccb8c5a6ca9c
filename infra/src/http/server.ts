import type express from 'express';
import type { Express } from 'express';
import swaggerUi from 'swagger-ui-express';
import client from 'prom-client';
import type { z } from 'zod';
import { createBaseApp, newRouter } from './app';
import { buildOpenApiDocument, type OpenApiInfo } from './openapi';
import { mountRoutes, type RouteDef, type TenantDirectory } from './route';
import { labelWithPrefix, routeLabelOf } from './route-label';
import { probeRoutes } from './probes';
import { rethrowDeferredInput } from './deferred-input';
import { formatPosition } from '../event-store/port';
import { PostgresEventStore } from '../event-store/postgres';
import { projectionLag } from '../projections/checkpoints';
import { httpKit, type Services } from '../services';
import { createSandboxHorizonRouter } from '@cagnotte/sandbox-ledger';

const STARTED = Symbol('request started');

/** knex's pool (tarn), as the same four numbers as pg's. */
const knexPool = (services: Services) => {
  type Tarn = { numUsed(): number; numFree(): number; numPendingAcquires(): number; max: number };
  // Read at each scrape: knex makes a new pool when it is destroyed and initialised again.
  const pool = (): Tarn | undefined => (services.knex.client as { pool?: Tarn }).pool;
  return [
    {
      pool: 'knex',
      total: () => (pool() ? pool()!.numUsed() + pool()!.numFree() : 0),
      idle: () => pool()?.numFree() ?? 0,
      waiting: () => pool()?.numPendingAcquires() ?? 0,
      max: () => pool()?.max ?? 0,
    },
  ];
};

export interface ApiServerOptions {
  services: Services;
  /** Resolves `X-Service-Tenant` and the signed-in user's tenant (the identity feature's tenants read model). */
  tenants: TenantDirectory;
  routes: RouteDef[];
  /** Which projections this process reports on in /health and /metrics. */
  projections: string[];
  info: OpenApiInfo;
  components?: Record<string, z.ZodType>;
}

const API_DESCRIPTION = `JSON REST API of the Cagnotte group-buying and escrow marketplace.

Every answer uses the envelope \`{ success: true, data }\` or \`{ success: false, error, code, errors? }\`.
Tenant-scoped requests send \`X-Service-Tenant: <slug>\`. Commands answer \`X-Event-Position\`; send it back as
\`X-Min-Position\` on a read served by another process to read your own write.
Lists take \`page\` (≥ 1, default 1) and \`limit\` (1–100, default 20) and answer \`{ items, pagination }\`.`;

/** An express app serving the given routes plus /livez, /readyz, /openapi.json, /docs, /health and /metrics. */
export const createApiServer = (o: ApiServerOptions): Express => {
  const { services } = o;
  const routes = [...probeRoutes(services, o.projections), ...o.routes];
  const doc = buildOpenApiDocument(routes, { ...o.info, description: `${o.info.description}\n\n${API_DESCRIPTION}` }, o.components);
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  services.metrics.registerInto(registry);
  // Connection pools: the event store's and hot reads' pg Pool, and knex's (read models).
  const pools = [
    { pool: 'pg', total: () => services.pgPool.totalCount, idle: () => services.pgPool.idleCount, waiting: () => services.pgPool.waitingCount, max: () => services.pgPool.options.max ?? 0 },
    ...knexPool(services),
  ];
  const poolGauge = (name: string, help: string, read: (p: (typeof pools)[number]) => number) =>
    new client.Gauge({
      name,
      help,
      labelNames: ['pool'],
      registers: [registry],
      collect() {
        for (const p of pools) this.set({ pool: p.pool }, read(p));
      },
    });
  poolGauge('db_pool_connections', 'Connections open in a database pool (idle and in use)', (p) => p.total());
  poolGauge('db_pool_idle_connections', 'Connections open and idle in a database pool', (p) => p.idle());
  poolGauge('db_pool_waiting_requests', 'Queries waiting for a connection of a database pool (the pool is exhausted while this is above 0)', (p) => p.waiting());
  poolGauge('db_pool_max_connections', 'The most connections a database pool opens (DB_POOL_SIZE; knex gets half)', (p) => p.max());
  const httpDuration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const lagGauge = new client.Gauge({
    name: 'projection_lag_events',
    help: 'Approximate events between a projection checkpoint and the head of the feed',
    labelNames: ['projection'],
    registers: [registry],
    async collect() {
      const head = await services.store.headPosition();
      for (const l of await projectionLag(services.knex, head, o.projections)) this.set({ projection: l.name }, l.lagEvents);
    },
  });
  // One listener for every request (no closure per request), and each label set's series looked up once.
  const series = new Map<string, { observe(seconds: number): void }>();
  function observeDuration(this: express.Response) {
    const req = this.req;
    const route = routeLabelOf(req);
    const status = String(this.statusCode);
    const key = `${req.method} ${route} ${status}`;
    let s = series.get(key);
    if (!s) series.set(key, (s = httpDuration.labels(req.method, route, status)));
    s.observe((performance.now() - ((this as { [STARTED]?: number })[STARTED] ?? 0)) / 1000);
  }
  // A faulted projection (stopped on an event, docs/projections.md): 1 while it waits for `projections retry`/`rebuild`.
  let faultCache: { at: number; lag: Promise<Awaited<ReturnType<typeof projectionLag>>> } | null = null;
  /** One read of the checkpoints per scrape, shared by the gauges below. */
  const lagNow = () => {
    if (!faultCache || Date.now() - faultCache.at > 500) {
      faultCache = { at: Date.now(), lag: services.store.headPosition().then((head) => projectionLag(services.knex, head, o.projections)) };
    }
    return faultCache.lag;
  };
  const faultedGauge = new client.Gauge({
    name: 'projection_faulted',
    help: '1 when a projection has stopped as faulted on an event (see projection_fault_info), else 0',
    labelNames: ['projection'],
    registers: [registry],
    async collect() {
      for (const l of await lagNow()) this.set({ projection: l.name }, l.state === 'faulted' ? 1 : 0);
    },
  });
  const attemptsGauge = new client.Gauge({
    name: 'projection_failed_attempts',
    help: 'Consecutive failed attempts of a projection on its current event (0 when healthy)',
    labelNames: ['projection'],
    registers: [registry],
    async collect() {
      for (const l of await lagNow()) this.set({ projection: l.name }, l.fault?.attempts ?? 0);
    },
  });
  const faultInfo = new client.Gauge({
    name: 'projection_fault_info',
    help: 'The event a faulted projection stopped on and the error (value 1; one series per faulted projection)',
    labelNames: ['projection', 'event_id', 'event_type', 'stream_id', 'revision', 'position', 'error'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const l of await lagNow()) {
        if (l.state !== 'faulted' || !l.fault) continue;
        const f = l.fault;
        this.set(
          {
            projection: l.name,
            event_id: f.eventId ?? '',
            event_type: f.type ?? '',
            stream_id: f.streamId ?? '',
            revision: f.revision === null ? '' : f.revision.toString(),
            position: f.position ?? '',
            error: f.error.slice(0, 200),
          },
          1,
        );
      }
    },
  });
  void lagGauge;
  void faultedGauge;
  void attemptsGauge;
  void faultInfo;
  // Background jobs (docs/jobs.md): depth and failures per queue, one read of the queues per scrape.
  let jobsCache: { at: number; counts: Promise<Awaited<ReturnType<typeof services.jobs.counts>>> } | null = null;
  const jobCounts = () => {
    if (!jobsCache || Date.now() - jobsCache.at > 500) {
      jobsCache = { at: Date.now(), counts: services.jobs.counts().catch((err: unknown) => (services.logger.warn({ err }, 'job counts unavailable'), {})) };
    }
    return jobsCache.counts;
  };
  new client.Gauge({
    name: 'job_queue_depth',
    help: 'Jobs in a queue by state: waiting (ready to run), delayed (scheduled or waiting for a retry), active (running)',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      for (const [queue, c] of Object.entries(await jobCounts())) {
        for (const state of ['waiting', 'delayed', 'active'] as const) this.set({ queue, state }, c[state]);
      }
    },
  });
  new client.Gauge({
    name: 'job_queue_failed',
    help: 'Jobs that failed their last attempt and are kept for the operator (JOBS_KEEP_FAILED_SECONDS)',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      for (const [queue, c] of Object.entries(await jobCounts())) this.set({ queue }, c.failed);
    },
  });
  new client.Counter({
    name: 'job_failed_attempts_total',
    help: 'Failed job attempts (retried ones included), counted in Redis across every worker process',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      const counts = await jobCounts();
      this.reset();
      for (const [queue, c] of Object.entries(counts)) this.inc({ queue }, c.failedAttempts);
    },
  });
  // PostgreSQL only: the feed waits for the oldest appending transaction of this database (docs/event-store.md).
  const store = services.store;
  const openAppends = store instanceof PostgresEventStore ? () => store.openAppends() : null;
  if (openAppends) {
    const appendsGauge = new client.Gauge({ name: 'event_store_open_appends', help: 'Appending transactions open now in the event store database', registers: [registry] });
    new client.Gauge({
      name: 'event_store_oldest_open_append_seconds',
      help: 'How long the oldest appending transaction still open has been open (the feed shows nothing past it until it ends); 0 when none is open',
      registers: [registry],
      async collect() {
        const open = await openAppends();
        this.set(open.oldestSeconds);
        appendsGauge.set(open.appends);
      },
    });
  }

  return createBaseApp({ logger: services.logger, bodyLimitBytes: services.config.BODY_LIMIT_BYTES, trustProxy: services.config.TRUST_PROXY, onRateLimited: services.metrics.rateLimited }, (app) => {
    app.use((_req, res, next) => {
      (res as { [STARTED]?: number })[STARTED] = performance.now();
      res.once('finish', observeDuration);
      next();
    });
    if (services.sandboxLedger) {
      // Where this server answers, for the ledger client calling its own sandbox network (the address it was reached on).
      if (!services.config.HORIZON_URL) {
        app.use((req, _res, next) => {
          const address = req.socket.localAddress;
          if (address && req.socket.localPort) services.self.url = `http://${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
          next();
        });
      }
      const ledger = services.sandboxLedger;
      // Genesis runs once, on the first request to the network (idempotent across processes).
      const genesis: express.RequestHandler = (_req, _res, next) => void ledger.ensureGenesis().then(() => next(), next);
      app.use('/sandbox/horizon', labelWithPrefix('/sandbox/horizon'), rethrowDeferredInput, genesis, createSandboxHorizonRouter(ledger, { onError: (err) => services.logger.error({ err }, 'sandbox ledger error') }));
    }
    app.get('/openapi.json', (_req, res) => res.json(doc));
    app.use('/docs', swaggerUi.serve, swaggerUi.setup(doc, { customSiteTitle: `${o.info.title} – API reference` }));
    app.get('/health', async (_req, res) => {
      const checks = await Promise.allSettled([services.knex.raw('SELECT 1'), services.redis.ping(), services.store.headPosition()]);
      const [db, redis, head] = checks;
      const lag = head.status === 'fulfilled' ? await projectionLag(services.knex, head.value, o.projections).catch(() => []) : [];
      const ok = db.status === 'fulfilled' && redis.status === 'fulfilled';
      // A faulted projection degrades the service but does not take it out of rotation: writes and the other read
      // models still work, so the answer stays 200 with status "degraded" (503 only when PostgreSQL or Redis is down).
      const faulted = lag.filter((l) => l.state === 'faulted');
      res.status(ok ? 200 : 503).json({
        success: ok,
        data: {
          status: ok && faulted.length === 0 ? 'ok' : 'degraded',
          postgres: db.status === 'fulfilled' ? 'ok' : 'down',
          redis: redis.status === 'fulfilled' ? 'ok' : 'down',
          eventStore: services.store.name,
          head: head.status === 'fulfilled' && head.value ? formatPosition(head.value) : null,
          projections: lag.map((l) => ({
            name: l.name,
            state: l.state,
            position: l.position ? formatPosition(l.position) : null,
            lagEvents: l.lagEvents,
            lagSeconds: l.lagSeconds,
            ...(l.fault ? { fault: { ...l.fault, revision: l.fault.revision === null ? null : l.fault.revision.toString() } } : {}),
          })),
          faulted: faulted.map((l) => ({ name: l.name, eventId: l.fault?.eventId ?? null, eventType: l.fault?.type ?? null, error: l.fault?.error ?? null })),
        },
      });
    });
    app.get('/metrics', async (_req, res) => {
      res.setHeader('Content-Type', registry.contentType);
      res.send(await registry.metrics());
    });
    const router = newRouter();
    mountRoutes(router, httpKit(services, o.tenants), routes);
    app.use(router);
  });
};
