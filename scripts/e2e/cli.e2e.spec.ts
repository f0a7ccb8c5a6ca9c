import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PostgresEventStore, clearProjectionFault, recordProjectionFailure } from '@cagnotte/infra';
import { testKnex, testPgPool } from '@cagnotte/infra/src/testing/resources';
import { call, runCli } from './harness';
import { freePort } from './child-server';

const root = resolve(__dirname, '../..');
const tsx = resolve(root, 'node_modules/.bin/tsx');

const cli = runCli;

const test = suite('operator CLI (as an operator runs it)');
const slug = `cli-${randomUUID().slice(0, 8)}`;

test('tenant create prints the record as JSON; a taken slug is refused with exit 1', async () => {
  const res = await cli('tenant', 'create', slug, '--white-label', 'on', '--origin', 'https://shop.example.test', '--origin', 'https://b.example.test:8443/path');
  assert.is(res.code, 0, res.err);
  const tenant = JSON.parse(res.out);
  assert.is(tenant.slug, slug);
  assert.is(tenant.whiteLabel, true);
  assert.equal(tenant.approvedOrigins, ['https://shop.example.test', 'https://b.example.test:8443']);
  assert.match(tenant.tenantId, /^[0-9a-f-]{36}$/);
  const again = await cli('tenant', 'create', slug);
  assert.is(again.code, 1);
  assert.match(again.err, /tenant_exists/);
});

test('user create prints the account; duplicates and bad usage are refused', async () => {
  const email = `op-${randomUUID().slice(0, 6)}@example.test`;
  const res = await cli('user', 'create', '--tenant', slug, '--email', email, '--password', 'operator-pass-1', '--phone', '+33612345678', '--role', 'organiser', '--account-type', 'BUSINESS');
  assert.is(res.code, 0, res.err);
  const user = JSON.parse(res.out);
  assert.is(user.email, email);
  assert.is(user.role, 'organiser');
  assert.is(user.accountType, 'BUSINESS');
  assert.is(user.tenant, slug);
  assert.not.ok(res.out.includes('operator-pass-1'), 'the password is never printed');
  const dup = await cli('user', 'create', '--tenant', slug, '--email', email.toUpperCase(), '--password', 'operator-pass-2');
  assert.is(dup.code, 1);
  assert.match(dup.err, /email_taken/);
  assert.is((await cli('user', 'create', '--tenant', slug, '--email', email)).code, 2, 'missing --password');
  assert.is((await cli('user', 'create', '--tenant', 'no-such-tenant', '--email', 'a@b.test', '--password', 'long-enough-1')).code, 2);
  assert.is((await cli('user', 'create', '--tenant', slug, '--email', 'x@y.test', '--password', 'long-enough-1', '--role', 'admin')).code, 2);
  assert.is((await cli('frobnicate')).code, 2);
});

test('user block refuses logins with 403 and revokes sessions; unblock restores; the mail outbox and ledger info are readable', async () => {
  const email = `blk-${randomUUID().slice(0, 6)}@example.test`;
  assert.is((await cli('user', 'create', '--tenant', slug, '--email', email, '--password', 'operator-pass-1')).code, 0);
  const block = await cli('user', 'block', '--tenant', slug, '--email', email.toUpperCase());
  assert.is(block.code, 0, block.err);
  assert.is(JSON.parse(block.out).blocked, true);
  assert.is((await cli('user', 'block', '--tenant', slug, '--email', 'nobody@example.test')).code, 2);
  assert.is((await cli('user', 'block', '--tenant', slug)).code, 2);
  const unblock = await cli('user', 'unblock', '--tenant', slug, '--email', email);
  assert.is(JSON.parse(unblock.out).blocked, false);
  const list = await cli('mail', 'list', '--limit', '5');
  assert.is(list.code, 0, list.err);
  assert.ok(Array.isArray(JSON.parse(list.out)));
  assert.is((await cli('mail', 'list', '--limit', '0')).code, 2);
  assert.is((await cli('mail', 'show', randomUUID())).code, 2);
  const info = await cli('ledger', 'info');
  assert.is(info.code, 0, info.err);
  const l = JSON.parse(info.out);
  assert.equal([l.mode, l.network, l.stablecoin.code], ['sandbox', 'sandbox', 'EURC']);
  assert.match(l.platformAccount, /^G[A-Z2-7]{55}$/);
});

test('projections status and events verify answer JSON', async () => {
  const status = await cli('projections', 'status');
  assert.is(status.code, 0, status.err);
  const names = JSON.parse(status.out).map((p: { name: string }) => p.name);
  assert.ok(names.includes('pools') && names.includes('identity'));
  const verify = await cli('events', 'verify', `tenant-${slug}`);
  assert.is(verify.code, 0, verify.err);
  assert.is(JSON.parse(verify.out).broken, 0);
});

test('events anchor commits new events to the sandbox ledger; events verify checks them against it (a stream of 11 events too); anchors lists the receipts', async () => {
  const stream = `tenant-${slug}`;
  // Eleven events: revision 10 sorts before 2 as text, the verify must read them as numbers.
  const eleven = `cli-eleven-${randomUUID()}`;
  const store = new PostgresEventStore({ pool: testPgPool(), listen: false });
  await store.append(
    eleven,
    Array.from({ length: 11 }, (_, i) => ({
      id: randomUUID(), type: 'CliVerifyProbe', schemaVersion: 1, data: { i },
      metadata: { tenantId: null, actor: { kind: 'system' as const, id: 'cli-spec' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() },
    })),
    { expectedRevision: 'no_stream' },
  );
  await store.close();
  // Another transaction still open on the cluster holds the feed (and anchoring) back: wait for it, never skip.
  const deadline = Date.now() + 90_000;
  let verified: { ok: boolean; anchors: { problems: unknown[]; latest: { anchorId: string } | null }; results: Array<{ streamId: string; anchored: number; notYetAnchored: number; ok: boolean; chain: unknown; firstForged: unknown }> };
  for (;;) {
    const anchored = await cli('events', 'anchor');
    assert.is(anchored.code, 0, anchored.err);
    assert.ok(['anchored', 'nothing_to_anchor', 'busy'].includes(JSON.parse(anchored.out).status));
    const res = await cli('events', 'verify', stream, eleven);
    assert.is(res.code, 0, res.out + res.err);
    verified = JSON.parse(res.out);
    if (verified.results.every((r) => r.notYetAnchored === 0)) break;
    if (Date.now() > deadline) assert.unreachable(`${stream} was not anchored in time: ${res.out}`);
  }
  assert.is(verified.ok, true);
  assert.equal(verified.anchors.problems, []);
  assert.ok(verified.results[0]!.anchored >= 1);
  const long = verified.results.find((r) => r.streamId === eleven)!;
  assert.equal([long.ok, long.anchored, long.chain, long.firstForged], [true, 11, { ok: true }, null], 'eleven events: no broken chain, none forged');

  const all = await cli('events', 'verify', '--all');
  const report = JSON.parse(all.out);
  assert.is(all.code === 0, report.ok === true, 'the exit code says what the report says');
  assert.is(report.broken, report.results.length, '--all lists the broken streams only');
  assert.not.ok(report.results.some((r: { streamId: string }) => r.streamId === eleven), '--all agrees: the eleven-event stream is not broken');

  const list = await cli('events', 'anchors', '--limit', '1');
  assert.is(list.code, 0, list.err);
  const [latest] = JSON.parse(list.out).anchors;
  assert.is(latest.status, 'anchored');
  assert.match(latest.txHash, /^[0-9a-f]{64}$/);
  const leaves = await cli('events', 'anchors', '--leaves', String(latest.anchorId));
  assert.is(leaves.code, 0, leaves.err);
  assert.is(JSON.parse(leaves.out).leaves.length, latest.leafCount);
});

test('a faulted projection: status and catch-up name the event and error and exit 1; projections retry clears it', async () => {
  const knex = testKnex();
  const event = { id: `spec-${randomUUID()}`, streamId: 'lead-spec', revision: 3n, position: { commit: 1n, prepare: 2n }, type: 'PilotRequested' };
  await recordProjectionFailure(knex, 'leads', { event, error: 'spec: boom' }, 1, true);
  try {
    const status = await cli('projections', 'status');
    assert.is(status.code, 1, 'exit 1 while a projection is faulted');
    const leads = JSON.parse(status.out).find((p: { name: string }) => p.name === 'leads');
    assert.is(leads.state, 'faulted');
    assert.is(leads.fault.eventId, event.id);
    assert.is(leads.fault.type, 'PilotRequested');
    assert.is(leads.fault.revision, '3');
    assert.is(leads.fault.error, 'spec: boom');
    assert.is(JSON.parse(status.out).find((p: { name: string }) => p.name === 'pools').state, 'running');
    const catchUp = await cli('projections', 'catch-up');
    assert.is(catchUp.code, 1);
    assert.equal(JSON.parse(catchUp.out).faulted.map((f: { name: string }) => f.name), ['leads']);
    const retry = await cli('projections', 'retry', 'leads');
    assert.is(retry.code, 0, retry.err);
    assert.equal(JSON.parse(retry.out), { projection: 'leads', wasFaulted: true, state: 'running' });
    const after = await cli('projections', 'status');
    assert.is(after.code, 0, after.err);
    assert.is(JSON.parse(after.out).find((p: { name: string }) => p.name === 'leads').state, 'running');
    assert.is((await cli('projections', 'retry', 'no-such')).code, 2);
    assert.is((await cli('projections', 'retry')).code, 2);
  } finally {
    await clearProjectionFault(knex, 'leads');
  }
});

test('pnpm start in sandbox creates the default tenant once, so a fresh sandbox takes signups without a tenant header', async () => {
  const dflt = `dflt-${randomUUID().slice(0, 8)}`;
  const port = await freePort();
  const start = () =>
    spawn(tsx, ['scripts/src/start.ts'], { cwd: root, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', DEFAULT_TENANT: dflt }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = async (p: ReturnType<typeof start>) => {
    p.kill('SIGTERM');
    await new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)));
  };
  const until = async (logs: () => string, text: string) => {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !logs().includes(text)) await new Promise((r) => setTimeout(r, 200));
  };
  let log = '';
  const first = start();
  first.stdout!.on('data', (d) => (log += String(d)));
  try {
    await until(() => log, 'listening');
    assert.ok(log.includes('created the default tenant'), log);
    const res = await call(`http://127.0.0.1:${port}`, 'POST', '/api/auth/register/simple', { body: { email: `s-${randomUUID().slice(0, 6)}@example.test`, password: 'long enough pw' } });
    assert.is(res.status, 200, res.text);
    assert.is((res.body as { data: { user: { tenant: string } } }).data.user.tenant, dflt);
  } finally {
    await stop(first);
  }
  let again = '';
  const second = start();
  second.stdout!.on('data', (d) => (again += String(d)));
  try {
    await until(() => again, 'listening');
    assert.not.ok(again.includes('created the default tenant'), 'only once');
  } finally {
    await stop(second);
  }
});

test('each app starts alone: command-api, query-api and the projector worker', async () => {
  // Ports the system hands out free now: a fixed one can be the local port of any outgoing connection on the machine.
  const ports = [await freePort(), await freePort(), await freePort()];
  const procs = ['command-api/src/main.ts', 'query-api/src/main.ts', 'projectors/src/main.ts'].map((file, i) =>
    spawn(tsx, [file], { cwd: root, env: { ...process.env, PORT: String(ports[i]), HOST: '127.0.0.1', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  const logs = procs.map(() => '');
  procs.forEach((p, i) => {
    p.stdout!.on('data', (d) => (logs[i] += String(d)));
    p.stderr!.on('data', (d) => (logs[i] += String(d)));
  });
  try {
    // A fresh clone compiles every module on first start (three at once on a busy CI machine): a generous deadline,
    // and what each process printed in the message when one did not come up.
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && !(logs[0]!.includes('listening') && logs[1]!.includes('listening') && logs[2]!.includes('projectors running'))) {
      if (procs.some((p) => p.exitCode !== null)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(logs[0]!.includes('listening'), `command-api started: ${logs[0]}`);
    assert.ok(logs[1]!.includes('listening'), `query-api started: ${logs[1]}`);
    assert.ok(logs[2]!.includes('projectors running'), `projector worker started: ${logs[2]}`);
    const health = await call(`http://127.0.0.1:${ports[0]}`, 'GET', '/health');
    assert.is(health.status, 200, health.text);
    const login = await call(`http://127.0.0.1:${ports[0]}`, 'POST', '/api/auth/login/password', { body: { email: 'nobody@example.test', password: 'x' } });
    assert.is(login.status, 401, 'command-api serves auth writes');
    const read = await call(`http://127.0.0.1:${ports[1]}`, 'GET', `/api/pools/${randomUUID()}`);
    assert.is(read.status, 404);
    assert.is(read.body.code, 'pool_not_found', 'query-api serves pool reads');
    assert.is((await call(`http://127.0.0.1:${ports[1]}`, 'POST', '/api/pools', { body: {} })).body.code, 'route_not_found', 'query-api has no writes');
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
  }
});

test.run();
