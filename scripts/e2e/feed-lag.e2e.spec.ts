import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApiServer, createServices, dropDatabase, eventHash, formatPosition, loadConfig, PostgresEventStore, type NewEvent, type Services } from '@cagnotte/infra';
import { testDatabaseUrl } from '@cagnotte/infra/src/testing/resources';
import { burnXidsUntil } from '@cagnotte/infra/src/testing/xids';
import { PROJECTION_NAMES, createProjectorRunner } from '@cagnotte/projectors';
import { call, listen } from './harness';
import { TenantReadModel } from '@cagnotte/read-models';

/**
 * Issue 8, section 1: lag is non-zero whenever it is. With the projectors stopped, N events appended past a
 * transaction-id digit boundary (checkpoints at 999, new events at six digits or more) show as a lag of N in
 * /health, in the projection_lag_events metric and in `pnpm cli projections status`, which all agree on the
 * head. Runs in a database of its own: no other runner moves the checkpoints, and the history can start
 * with fabricated transaction ids. Also: /metrics shows how long the oldest open append has been open.
 */
const test = suite('feed lag across a digit boundary: /health, /metrics and the CLI agree');

const root = resolve(__dirname, '../..');
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const probe = (i: number): NewEvent => ({
  id: randomUUID(),
  type: 'FeedLagProbe',
  schemaVersion: 1,
  data: { i },
  metadata: { tenantId: null, actor: { kind: 'system', id: 'lag-spec' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() },
});

interface HealthProjection {
  name: string;
  position: string | null;
  lagEvents: number;
}

test('projectors stopped, N events past the boundary: lag N everywhere; an open append shows in /metrics', async () => {
  const url = new URL(testDatabaseUrl());
  url.pathname = `${url.pathname}_lag`;
  const dbUrl = url.toString();
  await dropDatabase(dbUrl);
  let services: Services | null = null;
  let server: Awaited<ReturnType<typeof listen>>['server'] | null = null;
  try {
    services = await createServices(loadConfig({ ...process.env, DATABASE_URL: dbUrl, LOG_LEVEL: 'silent', DB_POOL_SIZE: '4' }));
    const s = services;
    const app = createApiServer({ services: s, tenants: new TenantReadModel(s.knex), routes: [], projections: PROJECTION_NAMES, info: { title: 'lag spec', version: '1', description: 'lag spec' } });
    const api = await listen(app);
    server = api.server;

    // A history below the boundary: transaction ids 990…999 (fabricated), sequence 1…10.
    // Each event hashed as the store would (projectors check every hash link they read).
    for (let i = 0; i < 10; i++) {
      const streamId = `lag-${randomUUID()}`;
      const id = randomUUID();
      const metadata = probe(i).metadata;
      const hash = eventHash(null, { streamId, revision: 0n, id, type: 'FeedLagProbe', schemaVersion: 1, data: {}, metadata });
      await s.pgPool.query(
        `INSERT INTO es_events (global_position, transaction_id, stream_id, stream_revision, event_id, type, schema_version, data, metadata, hash)
         VALUES ($1, $2::text::xid8, $3, 0, $4, 'FeedLagProbe', 1, '{}', $5, $6)`,
        [i + 1, String(990 + i), streamId, id, JSON.stringify(metadata), hash],
      );
    }
    await s.pgPool.query(`SELECT setval('es_events_global_position_seq', 10)`);
    const runner = createProjectorRunner(s); // never started: it only catches up when told
    await runner.catchUp();
    const health0 = await call<{ data: { head: string; projections: HealthProjection[] } }>(api.url, 'GET', '/health');
    assert.is(health0.body.data.head, '999-10');
    assert.ok(health0.body.data.projections.every((p) => p.lagEvents === 0 && p.position === '999-10'), JSON.stringify(health0.body.data));

    // N events with real transaction ids (four digits or more: '1000' sorts before '999' as text) while nothing
    // projects. A young cluster (a fresh CI machine) may still be below 1000: burn ids up to it first.
    await burnXidsUntil(s.pgPool, 1_000n);
    const N = 7;
    let last = null;
    for (let i = 0; i < N; i++) last = (await s.store.append(`lag-${randomUUID()}`, [probe(i)], { expectedRevision: 'no_stream' })).position;
    assert.ok(last!.commit >= 1_000n, `real ids have more digits than 999: ${last!.commit}`);

    const health = await call<{ data: { head: string; projections: HealthProjection[] } }>(api.url, 'GET', '/health');
    assert.is(health.status, 200);
    assert.is(health.body.data.head, formatPosition(last!), '/health reports the true head');
    for (const p of health.body.data.projections) assert.is(p.lagEvents, N, `/health: ${p.name}`);

    const metrics = (await call<string>(api.url, 'GET', '/metrics')).text;
    for (const name of PROJECTION_NAMES) {
      const m = new RegExp(`^projection_lag_events\\{projection="${name}"\\} (\\d+)$`, 'm').exec(metrics);
      assert.is(Number(m?.[1]), N, `metric for ${name}`);
    }
    assert.match(metrics, /^event_store_oldest_open_append_seconds 0$/m);
    assert.match(metrics, /^event_store_open_appends 0$/m);

    const cli = await run(process.execPath, ['scripts/cli.mjs', 'projections', 'status'], { cwd: root, env: { ...process.env, DATABASE_URL: dbUrl, LOG_LEVEL: 'silent' } });
    const status = JSON.parse(cli.stdout) as Array<{ name: string; head: string; lagEvents: number }>;
    assert.equal(status.map((p) => p.name).sort(), [...PROJECTION_NAMES].sort());
    for (const p of status) {
      assert.is(p.head, formatPosition(last!), `CLI head for ${p.name}`);
      assert.is(p.lagEvents, N, `CLI lag for ${p.name}`);
    }

    // An append held open shows in /metrics with its age (waiting on the condition, not a fixed time).
    const client = await s.pgPool.connect();
    try {
      await client.query('BEGIN');
      await (s.store as PostgresEventStore).appendWithin(client, `lag-open-${randomUUID()}`, [probe(99)], { expectedRevision: 'no_stream' });
      const deadline = Date.now() + 15_000;
      let age = 0;
      let text = '';
      while (age < 1 && Date.now() < deadline) {
        text = (await call<string>(api.url, 'GET', '/metrics')).text;
        age = Number(/^event_store_oldest_open_append_seconds (\S+)$/m.exec(text)?.[1] ?? 0);
        if (age < 1) await sleep(100);
      }
      assert.ok(age >= 1, `oldest open append ${age} s`);
      assert.match(text, /^event_store_open_appends 1$/m);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }

    await runner.catchUp();
    const after = await call<{ data: { projections: HealthProjection[] } }>(api.url, 'GET', '/health');
    for (const p of after.body.data.projections) assert.is(p.lagEvents, 0, `caught up: ${p.name}`);
  } finally {
    if (server) {
      const srv = server;
      await new Promise<void>((r) => srv.close(() => r()));
      srv.closeAllConnections?.();
    }
    await services?.close();
    await dropDatabase(dbUrl);
  }
});

test.run();
