/**
 * A projection that keeps failing on an event stops as faulted (the others keep running), says so in status, /health
 * and /metrics, and resumes exactly once after `retry` or `rebuild`. A tampered event stops catch-up and rebuild.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApiServer, createServices, eventHash, loadConfig, type Position, type RecordedEvent } from '@cagnotte/infra';
import { onTestTeardown } from '@cagnotte/infra/src/testing/resources';
import { ProjectionFaultedError, ProjectorRunner } from './runtime';
import { ChainChecker } from './chain-check';
import {
  appendTo,
  checkpointOf,
  counterProjection,
  counterRows,
  createCounterTable,
  dropTables,
  eventually,
  maxPosition,
  newPool,
  silent as logger,
  sleep,
  specKnex as knex,
  specStore as store,
  uniq,
} from './spec-support';
import { TenantReadModel } from '@cagnotte/read-models';

const test = suite('projectors: faulted projections');

const fast = { maxAttempts: 3, retryBaseMs: 5, faultPollMs: 30 };

/** Every `stream@revision` of these pools, in stream order (what a counter must hold exactly once each). */
const expectedKeys = async (streams: string[]) => {
  const out: string[] = [];
  for (const s of streams) for (const e of await store().readStream(s)) out.push(`${s}@${e.revision}`);
  return out.sort();
};

/** An HTTP server reporting on the given projections, as the API does (its own Services). */
const startHttp = async (projections: string[]) => {
  const services = await createServices({ ...loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), PORT: 0, HOST: '127.0.0.1' }, { migrate: false });
  const app = createApiServer({ services, tenants: new TenantReadModel(services.knex), routes: [], projections, info: { title: 'spec', version: '1', description: 'spec' } });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    await new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections?.();
    });
    await services.close();
  };
  onTestTeardown(close);
  return { base, close };
};

test('an event that keeps failing faults its projection after K attempts; the others keep running; status, /health and /metrics name it; retry resumes exactly once', async () => {
  const badTable = uniq('spec_fault');
  const goodTable = uniq('spec_fault_ok');
  await Promise.all([createCounterTable(badTable), createCounterTable(goodTable)]);
  const pools = Array.from({ length: 3 }, () => newPool());
  const streams = new Set(pools.map((p) => p.streamId));
  const badName = uniq('spec-faulty');
  const goodName = uniq('spec-healthy');
  let broken = true;
  let badEventId = '';
  let callsOnBad = 0;
  const bad = counterProjection({
    name: badName,
    table: badTable,
    streams,
    failWhen: (e) => broken && e.id === badEventId,
    onApply: (e) => void (e.id === badEventId && callsOnBad++),
  });
  const good = counterProjection({ name: goodName, table: goodTable, streams });
  const runner = new ProjectorRunner({ store: store(), knex: knex(), projections: [bad, good], logger, ...fast });
  // The operator's process (the CLI): a runner of its own, sharing only the database.
  const admin = new ProjectorRunner({ store: store(), knex: knex(), projections: [bad, good], logger, ...fast });
  const http = await startHttp([badName, goodName]);
  try {
    const [a, b, c] = pools as [ReturnType<typeof newPool>, ReturnType<typeof newPool>, ReturnType<typeof newPool>];
    const positions: Position[] = [];
    positions.push((await appendTo(a, a.created(), a.published())).position);
    const bRes = await appendTo(b, b.created(), b.published(), b.archived());
    positions.push(bRes.position);
    const badEvent = (await store().readStream(b.streamId))[1] as RecordedEvent;
    badEventId = badEvent.id;
    positions.push((await appendTo(c, c.created(), c.published())).position);
    await runner.start();

    // The healthy projection applies everything, the faulty one stops at b@1.
    const all = await expectedKeys([...streams]);
    assert.ok(await eventually(async () => (await counterRows(goodTable)).sort().join() === all.join()), 'the healthy projection keeps running');
    assert.ok(await eventually(async () => (await checkpointOf(badName))?.state === 'faulted'), 'the faulty projection stops as faulted');
    const cp = (await checkpointOf(badName))!;
    assert.is(cp.fault?.eventId, badEventId);
    assert.is(cp.fault?.type, 'PoolPublished');
    assert.is(cp.fault?.streamId, b.streamId);
    assert.is(cp.fault?.revision, 1n);
    assert.is(cp.fault?.position, `${badEvent.position.commit}-${badEvent.position.prepare}`);
    assert.is(cp.fault?.attempts, 3);
    assert.match(cp.fault!.error, new RegExp(`spec: refusing PoolPublished ${badEventId}`));
    assert.ok(cp.fault?.faultedAt instanceof Date);
    // Nothing skipped: the events before b@1 are applied, none after, and the checkpoint is just before it.
    assert.equal((await counterRows(badTable)).sort(), [`${a.streamId}@0`, `${a.streamId}@1`, `${b.streamId}@0`].sort());
    assert.ok(cp.position && cp.position.commit <= badEvent.position.commit && cp.position.prepare < badEvent.position.prepare);

    // It stays stopped: no more attempts on the event.
    const calls = callsOnBad;
    await sleep(300);
    assert.is(callsOnBad, calls, 'no attempt after the fault');

    // status, catch-up, /health and /metrics name the event and the error.
    const status = await admin.status();
    const st = status.find((s) => s.name === badName)!;
    assert.is(st.state, 'faulted');
    assert.is(st.fault?.eventId, badEventId);
    assert.is(status.find((s) => s.name === goodName)!.state, 'running');
    try {
      await admin.catchUp();
      assert.unreachable('catch-up reports the fault');
    } catch (e) {
      assert.instance(e, ProjectionFaultedError);
      assert.equal((e as ProjectionFaultedError).faulted.map((f) => f.name), [badName]);
      assert.match((e as Error).message, badEventId);
    }
    const health = await fetch(`${http.base}/health`);
    assert.is(health.status, 200, 'degraded, still in rotation');
    const h = (await health.json()) as { data: { status: string; faulted: Array<{ name: string; eventId: string; error: string }>; projections: Array<{ name: string; state: string }> } };
    assert.is(h.data.status, 'degraded');
    assert.equal(h.data.faulted.map((f) => [f.name, f.eventId]), [[badName, badEventId]]);
    assert.match(h.data.faulted[0]!.error, /spec: refusing/);
    assert.is(h.data.projections.find((p) => p.name === goodName)?.state, 'running');
    const metrics = await (await fetch(`${http.base}/metrics`)).text();
    assert.ok(metrics.includes(`projection_faulted{projection="${badName}"} 1`), 'projection_faulted 1');
    assert.ok(metrics.includes(`projection_faulted{projection="${goodName}"} 0`), 'projection_faulted 0');
    const info = metrics.split('\n').find((l) => l.startsWith(`projection_fault_info{projection="${badName}"`));
    assert.ok(info && info.includes(`event_id="${badEventId}"`) && info.includes('event_type="PoolPublished"') && /error="spec: refusing/.test(info), info);

    // The fix, then the operator's retry (another process): the running runner notices and resumes exactly once.
    broken = false;
    assert.equal(await admin.retry(badName), { wasFaulted: true });
    assert.ok(await eventually(async () => (await counterRows(badTable)).length >= all.length), 'resumed');
    await sleep(100);
    const rows = await counterRows(badTable);
    assert.equal([...rows].sort(), all, 'every event exactly once');
    const after = (await checkpointOf(badName))!;
    assert.is(after.state, 'running');
    assert.is(after.fault, null);
    assert.ok(after.position && after.position.prepare >= maxPosition(positions).prepare - 0n);
    const healthy = (await (await fetch(`${http.base}/health`)).json()) as { data: { status: string; faulted: unknown[] } };
    assert.is(healthy.data.status, 'ok');
    assert.equal(healthy.data.faulted, []);
  } finally {
    await runner.stop();
    await http.close();
    await dropTables(badTable, goodTable);
  }
});

test('a transient failure is retried and applied once without faulting; rebuild clears a fault', async () => {
  const table = uniq('spec_fault_rb');
  await createCounterTable(table);
  const p = newPool();
  const streams = new Set([p.streamId]);
  const name = uniq('spec-flaky');
  let failures = 1; // fails once, then works
  const projection = counterProjection({ name, table, streams, failWhen: () => failures-- > 0 });
  const runner = new ProjectorRunner({ store: store(), knex: knex(), projections: [projection], logger, ...fast });
  try {
    await appendTo(p, p.created(), p.published());
    await runner.start();
    assert.ok(await eventually(async () => (await counterRows(table)).length === 2));
    assert.is((await checkpointOf(name))?.state, 'running');
    assert.is((await checkpointOf(name))?.fault, null, 'the failure is forgotten once the checkpoint moves past it');

    // Now it fails for good on the next event, faults, is fixed and rebuilt by the operator.
    failures = 1_000_000;
    await appendTo(p, p.archived());
    assert.ok(await eventually(async () => (await checkpointOf(name))?.state === 'faulted'));
    failures = 0;
    const admin = new ProjectorRunner({ store: store(), knex: knex(), projections: [projection], logger, ...fast });
    await admin.rebuild(name);
    const cp = (await checkpointOf(name))!;
    assert.is(cp.state, 'running');
    assert.is(cp.fault, null);
    assert.equal((await counterRows(table)).sort(), [`${p.streamId}@0`, `${p.streamId}@1`, `${p.streamId}@2`]);
    // The live runner notices and carries on with new events, exactly once.
    await appendTo(p, p.unarchived());
    assert.ok(await eventually(async () => (await counterRows(table)).length === 4));
    await sleep(100);
    assert.equal((await counterRows(table)).sort(), [0, 1, 2, 3].map((r) => `${p.streamId}@${r}`));
    // A stopped runner still catches up on demand (the CLI and the e2e harness do that).
    await runner.stop();
    await appendTo(p, p.archived(5));
    assert.ok(await eventually(async () => (await runner.catchUp(), (await counterRows(table)).length === 5)), 'catch-up on a stopped runner');
  } finally {
    await runner.stop();
    await dropTables(table);
  }
});

/** Edits a stored event the way an attacker with superuser rights would (bypassing the append-only trigger). */
const tamper = async (eventId: string, data: unknown) =>
  knex().transaction(async (trx) => {
    await trx.raw('SET LOCAL session_replication_role = replica');
    await trx.raw('UPDATE es_events SET data = ?::jsonb WHERE event_id = ?', [JSON.stringify(data), eventId]);
  });

test('a tampered event stops catch-up and rebuild as faulted, naming it; nothing after it is applied', async () => {
  const table = uniq('spec_tamper');
  await createCounterTable(table);
  const p = newPool();
  const name = uniq('spec-tamper');
  const projection = counterProjection({ name, table, streams: new Set([p.streamId]) });
  const runner = new ProjectorRunner({ store: store(), knex: knex(), projections: [projection], logger, ...fast });
  let restore: (() => Promise<void>) | null = null;
  try {
    const { position: first } = await appendTo(p, p.created());
    await eventually(async () => {
      await runner.catchUp().catch(() => undefined);
      const cp = await checkpointOf(name);
      return !!cp?.position && cp.position.prepare >= first.prepare;
    });
    await appendTo(p, p.renamed('Honest title'), p.published());
    const events = await store().readStream(p.streamId);
    const victim = events[1]!;
    restore = () => tamper(victim.id, victim.data);
    await tamper(victim.id, { ...(victim.data as object), changes: { title: 'Forged title' } });

    // Catch-up: p@0 applied before, p@1 is forged, p@2 must not be applied past it.
    try {
      await runner.catchUp(maxPosition(events.map((e) => e.position)));
      assert.unreachable('catch-up must stop at the forged event');
    } catch (e) {
      assert.instance(e, ProjectionFaultedError);
      assert.match((e as Error).message, victim.id);
      assert.match((e as Error).message, /content does not match its hash/);
    }
    let cp = (await checkpointOf(name))!;
    assert.is(cp.state, 'faulted');
    assert.is(cp.fault?.eventId, victim.id);
    assert.is(cp.fault?.revision, 1n);
    assert.equal(await counterRows(table), [`${p.streamId}@0`]);

    // Retry does not help while the event stays forged: it faults again at once.
    await runner.retry(name);
    await runner.catchUp().then(
      () => assert.unreachable('faults again'),
      (e: unknown) => assert.instance(e, ProjectionFaultedError),
    );

    // Rebuild reads from position 0, checks every link, and stops at the forged event: the live table stays.
    await runner.retry(name);
    try {
      await runner.rebuild(name);
      assert.unreachable('rebuild must stop at the forged event');
    } catch (e) {
      assert.instance(e, ProjectionFaultedError);
      assert.match((e as Error).message, victim.id);
    }
    cp = (await checkpointOf(name))!;
    assert.is(cp.state, 'faulted');
    assert.is(cp.fault?.eventId, victim.id);
    assert.match(cp.fault!.error, /hash chain broken/);
    assert.equal(await counterRows(table), [`${p.streamId}@0`], 'the live table is untouched');
    assert.is(((await knex().raw('SELECT to_regclass(?) AS r', [`${table}__rebuild`])) as { rows: Array<{ r: string | null }> }).rows[0]!.r, null);

    // The event restored (say, from a backup), a rebuild brings everything back and clears the fault.
    await restore();
    restore = null;
    await runner.rebuild(name);
    assert.is((await checkpointOf(name))?.state, 'running');
    assert.equal(await counterRows(table), [0, 1, 2].map((r) => `${p.streamId}@${r}`));
  } finally {
    if (restore) await restore();
    await runner.stop();
    await dropTables(table, `${table}__rebuild`);
  }
});

test('the hash-link check: events of a stream out of revision order in the feed pass; a forged copy, a wrong link or a missing predecessor do not', async () => {
  const p = newPool();
  await appendTo(p, p.created(), p.renamed('one'), p.published(), p.archived());
  const [e0, e1, e2, e3] = (await store().readStream(p.streamId)) as [RecordedEvent, RecordedEvent, RecordedEvent, RecordedEvent];
  // Two appends racing on one stream can reach the feed with the later revision first.
  assert.is(await new ChainChecker(store()).check([e0, e2, e1, e3]), null, 'out of order, all present');
  assert.is(await new ChainChecker(store()).check([e2, e3]), null, 'mid-stream: predecessor looked up');
  const forged = { ...e2, data: { ...(e2.data as object), publishedAt: '2030-01-01T00:00:00.000Z' } };
  const b1 = await new ChainChecker(store()).check([e0, e1, forged, e3]);
  assert.equal([b1?.index, b1?.event.id, b1?.reason], [2, e2.id, 'content does not match its hash']);
  // A re-hashed forgery: its own hash recomputes, but the next event's link does not match.
  const rehashed = { ...forged, hash: eventHash(forged.prevHash, forged) };
  const b2 = await new ChainChecker(store()).check([e0, e1, rehashed, e3]);
  assert.equal([b2?.index, b2?.event.id, b2?.reason], [3, e3.id, 'previous hash does not match']);
  const ghost = { ...e3, streamId: `${p.streamId}-ghost` };
  const b3 = await new ChainChecker(store()).check([{ ...ghost, hash: eventHash(ghost.prevHash, ghost) }]);
  assert.match(b3?.reason ?? '', /previous event \(revision 2\) is missing/);
});

test.run();
