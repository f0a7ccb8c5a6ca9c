import type { Server } from 'node:http';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import express from 'express';
import { createServices, loadConfig } from '@cagnotte/infra';
import { createEmbedded } from '../src/api';

/**
 * A server for the HTTP benchmark, in a process of its own so that it does not share an event loop with
 * the load generator. `app`: the embedded API (command + query + projectors) on BENCH_SERVER_DATABASE_URL.
 * `baseline`: a bare express app whose GET /api/pools/:id answers BENCH_BASELINE_BODY as it is.
 * Tells the parent `{ port }` over IPC once listening; stops on `'stop'` or when the parent goes away.
 * On `'stats'` it answers its event-loop delay and GC pauses since the last `'stats'`, then resets them.
 */

const mode = process.argv[2];
const send = (m: unknown) => process.send?.(m);

const listen = (app: express.Express): Promise<Server> =>
  new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });

const portOf = (server: Server): number => {
  const addr = server.address();
  return typeof addr === 'object' && addr ? addr.port : 0;
};

/** Event-loop delay and GC pauses: tells a stall inside Node from time spent waiting on PostgreSQL. */
const RESOLUTION_MS = 2;
const loopDelay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
loopDelay.enable();
const gc = { count: 0, totalMs: 0, maxMs: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.count++;
    gc.totalMs += e.duration;
    gc.maxMs = Math.max(gc.maxMs, e.duration);
  }
}).observe({ entryTypes: ['gc'] });
const cpuAt = { usage: process.cpuUsage(), at: process.hrtime.bigint() };

const takeStats = () => {
  const cpu = process.cpuUsage(cpuAt.usage);
  const wallMs = Number(process.hrtime.bigint() - cpuAt.at) / 1e6;
  const stats = {
    // The histogram holds whole tick intervals: the delay is what exceeds the resolution.
    eventLoopDelayMs: {
      p50: Math.max(0, loopDelay.percentile(50) / 1e6 - RESOLUTION_MS),
      p99: Math.max(0, loopDelay.percentile(99) / 1e6 - RESOLUTION_MS),
      max: Math.max(0, loopDelay.max / 1e6 - RESOLUTION_MS),
    },
    gc: { ...gc },
    cpuPercent: Math.round(((cpu.user + cpu.system) / 1000 / wallMs) * 100),
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
  loopDelay.reset();
  Object.assign(gc, { count: 0, totalMs: 0, maxMs: 0 });
  Object.assign(cpuAt, { usage: process.cpuUsage(), at: process.hrtime.bigint() });
  return stats;
};

const main = async () => {
  let close: () => Promise<void>;
  if (mode === 'app') {
    const config = loadConfig({
      ...process.env,
      DATABASE_URL: process.env.BENCH_SERVER_DATABASE_URL,
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      PORT: '0',
      // The bench logs in and creates pools from one IP on every run: keep the per-minute limits out of the way.
      RATE_LIMIT_LOGIN_PER_MINUTE: '1000',
      RATE_LIMIT_WRITES_PER_MINUTE: '1000',
    });
    const services = await createServices(config, { migrate: false });
    const { app, runner } = await createEmbedded(services);
    const server = await listen(app);
    close = async () => {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await runner.stop();
      await services.close();
    };
    send({ port: portOf(server) });
  } else if (mode === 'baseline') {
    const body = process.env.BENCH_BASELINE_BODY ?? '{"success":true,"data":{}}';
    const constant = JSON.parse(body) as unknown;
    const app = express();
    app.disable('x-powered-by');
    app.get('/api/pools/:id', (_req, res) => {
      res.json(constant);
    });
    const server = await listen(app);
    close = async () => {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
    };
    send({ port: portOf(server) });
  } else {
    throw new Error(`unknown mode ${String(mode)}: app or baseline`);
  }
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(0), 5_000);
    force.unref();
    await close().catch(() => undefined);
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'stop') void stop();
    if (m === 'stats') send({ stats: takeStats() });
  });
  process.on('disconnect', () => void stop());
};

main().catch((e: unknown) => {
  send({ error: e instanceof Error ? e.message : String(e) });
  process.exit(1);
});
