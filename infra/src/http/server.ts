import type express from 'express';
import type { Express } from 'express';
import swaggerUi from 'swagger-ui-express';
import client from 'prom-client';
import type { z } from 'zod';
import { createBaseApp, newRouter } from './app';
import { buildOpenApiDocument, type OpenApiInfo } from './openapi';
import { mountRoutes, type RouteDef } from './route';
import { formatPosition } from '../event-store/port';
import { PostgresEventStore } from '../event-store/postgres';
import { projectionLag } from '../projections/checkpoints';
import type { Services } from '../services';
import { createSandboxHorizonRouter } from '../ledger/sandbox';

export interface ApiServerOptions {
  services: Services;
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

/** An express app serving the given routes plus /openapi.json, /docs, /health and /metrics. */
export const createApiServer = (o: ApiServerOptions): Express => {
  const { services } = o;
  const doc = buildOpenApiDocument(o.routes, { ...o.info, description: `${o.info.description}\n\n${API_DESCRIPTION}` }, o.components);
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
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
  void lagGauge;
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

  return createBaseApp({ logger: services.logger, bodyLimitBytes: services.config.BODY_LIMIT_BYTES, trustProxy: services.config.TRUST_PROXY }, (app) => {
    app.use((req, res, next) => {
      const end = httpDuration.startTimer({ method: req.method });
      res.on('finish', () => end({ route: req.route?.path ?? 'unmatched', status: String(res.statusCode) }));
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
      app.use('/sandbox/horizon', genesis, createSandboxHorizonRouter(ledger, { onError: (err) => services.logger.error({ err }, 'sandbox ledger error') }));
    }
    app.get('/openapi.json', (_req, res) => res.json(doc));
    app.use('/docs', swaggerUi.serve, swaggerUi.setup(doc, { customSiteTitle: `${o.info.title} – API reference` }));
    app.get('/health', async (_req, res) => {
      const checks = await Promise.allSettled([services.knex.raw('SELECT 1'), services.redis.ping(), services.store.headPosition()]);
      const [db, redis, head] = checks;
      const lag = head.status === 'fulfilled' ? await projectionLag(services.knex, head.value, o.projections).catch(() => []) : [];
      const ok = db.status === 'fulfilled' && redis.status === 'fulfilled';
      res.status(ok ? 200 : 503).json({
        success: ok,
        data: {
          status: ok ? 'ok' : 'degraded',
          postgres: db.status === 'fulfilled' ? 'ok' : 'down',
          redis: redis.status === 'fulfilled' ? 'ok' : 'down',
          eventStore: services.store.name,
          head: head.status === 'fulfilled' && head.value ? formatPosition(head.value) : null,
          projections: lag.map((l) => ({ name: l.name, position: l.position ? formatPosition(l.position) : null, lagEvents: l.lagEvents, lagSeconds: l.lagSeconds })),
        },
      });
    });
    app.get('/metrics', async (_req, res) => {
      res.setHeader('Content-Type', registry.contentType);
      res.send(await registry.metrics());
    });
    const router = newRouter();
    mountRoutes(router, services.kit, o.routes);
    app.use(router);
  });
};
