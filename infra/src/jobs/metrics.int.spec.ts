import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../config';
import { createServices } from '../services';
import { createApiServer } from '../http/server';
import { onTestTeardown } from '../testing/resources';

const test = suite('/metrics: job queues');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('per-queue depth (waiting, delayed, active), failed jobs and failed attempts show in /metrics beside the existing metrics', async () => {
  // A key prefix of its own: the queues start empty, whatever other specs left in this run's Redis.
  const prefix = `${process.env.REDIS_KEY_PREFIX ?? 'test:'}metrics-${randomUUID().slice(0, 8)}:`;
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', REDIS_KEY_PREFIX: prefix, JOBS_ATTEMPTS: '2', JOBS_RETRY_BASE_MS: '10' });
  const services = await createServices({ ...config, PORT: 0, HOST: '127.0.0.1' }, { migrate: false });
  // No routes are served, so no tenant is ever resolved: an empty directory.
  const tenants = { bySlug: async () => null, byId: async () => null };
  const app = createApiServer({ services, tenants, routes: [], projections: [], info: { title: 'spec', version: '1', description: 'spec' } });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  onTestTeardown(async () => {
    await new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections?.();
    });
    await services.close();
  });
  const metrics = async () => (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`)).text();

  // The mail queue is reported before this process uses it; nothing queued yet.
  const empty = await metrics();
  for (const state of ['waiting', 'delayed', 'active']) assert.match(empty, new RegExp(`^job_queue_depth\\{queue="mail",state="${state}"\\} 0$`, 'm'));
  assert.match(empty, /^job_queue_failed\{queue="mail"\} 0$/m);
  assert.match(empty, /^job_failed_attempts_total\{queue="mail"\} 0$/m);

  await services.jobs.enqueue('mail', randomUUID(), {}, { delayMs: 60_000 });
  await services.jobs.enqueue('probe', 'ready-1', {});
  await services.jobs.enqueue('probe', 'ready-2', {});
  await sleep(600); // past the per-scrape cache (one read of the queues per scrape burst)
  let text = await metrics();
  assert.match(text, /^job_queue_depth\{queue="mail",state="delayed"\} 1$/m);
  assert.match(text, /^job_queue_depth\{queue="probe",state="waiting"\} 2$/m);

  const worker = services.jobs.startWorker('probe', async (_p, ctx) => {
    if (ctx.key === 'ready-2') throw new Error('always fails');
  });
  const end = Date.now() + 10_000;
  while (!/^job_queue_failed\{queue="probe"\} 1$/m.test(text) && Date.now() < end) {
    await sleep(50);
    text = await metrics();
  }
  await worker.close();
  await sleep(600); // past the per-scrape cache
  text = await metrics();
  assert.match(text, /^job_queue_failed\{queue="probe"\} 1$/m);
  assert.match(text, /^job_failed_attempts_total\{queue="probe"\} 2$/m, 'both attempts of the failing job count');
  assert.match(text, /^job_queue_depth\{queue="probe",state="waiting"\} 0$/m);
  assert.match(text, /^job_queue_depth\{queue="mail",state="delayed"\} 1$/m);
  assert.match(text, /^# TYPE job_failed_attempts_total counter$/m);
  // The existing metrics are still there.
  assert.match(text, /^# TYPE http_request_duration_seconds histogram$/m);
  assert.match(text, /^# TYPE projection_lag_events gauge$/m);
});

test.run();
