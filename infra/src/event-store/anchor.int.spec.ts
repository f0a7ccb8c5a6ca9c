import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import express from 'express';
import { Horizon } from '@stellar/stellar-sdk';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../config';
import { createLogger } from '../logger';
import { createLedgerGateway } from '../services';
import { startAnchoring } from './anchoring';
import { LedgerGateway } from '../ledger/gateway';
import { SandboxLedger, createSandboxHorizonRouter, sandboxKeys } from '@cagnotte/sandbox-ledger';
import { testKnex, testPgPool } from '../testing/resources';
import { tamper } from '../testing/tamper';
import { LedgerUnavailableError } from '../ledger/gateway';
import { EventAnchor, anchorRoot, horizonAnchorLedger, sandboxAnchorLedger, type AnchorReceipt } from './anchor';
import { PostgresEventStore } from './postgres';
import type { NewEvent } from './port';

// The deployment's own network and anchoring key, as the CLI derives them: receipts made here stay verifiable
// by later specs that share this database.
const config = loadConfig();
const passphrase = config.STELLAR_NETWORK_PASSPHRASE;
const keypair = sandboxKeys(passphrase).anchor;
const sandbox = new SandboxLedger(testKnex(), { passphrase, assetCode: config.STELLAR_ASSET_CODE });
const anchor = new EventAnchor({ pool: testPgPool(), ledger: sandboxAnchorLedger(sandbox), keypair, networkPassphrase: passphrase });

const ev = (i: number): NewEvent => ({
  id: randomUUID(),
  type: 'AnchorProbe',
  schemaVersion: 1,
  data: { i, amount: '1000' },
  metadata: { tenantId: null, actor: { kind: 'system', id: 'anchor-spec' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() },
});

/** Anchors until the stream's events are covered (another transaction still open holds the feed back: wait, never skip). */
const anchorUntilCovered = async (streamId: string): Promise<AnchorReceipt[]> => {
  const deadline = Date.now() + 60_000;
  const made: AnchorReceipt[] = [];
  for (;;) {
    const run = await anchor.anchorNow();
    made.push(...run.anchors);
    const report = await anchor.verify([streamId]);
    if (report.results[0]!.notYetAnchored === 0) return made;
    if (Date.now() > deadline) throw new Error(`${streamId} was not anchored within 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** What an attacker with the database does: trigger off, edit, recompute every later hash and the head. */
const serveSandbox = async (): Promise<{ url: string; close: () => Promise<void> }> => {
  const app = express();
  app.use('/sandbox/horizon', createSandboxHorizonRouter(sandbox));
  const server = await new Promise<Server>((resolve) => {
    const srv = app.listen(0, '127.0.0.1', () => resolve(srv));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/sandbox/horizon`,
    close: () => new Promise((r) => server.close(() => r())),
  };
};

const test = suite('anchoring the event log on the ledger');

test('the tree: domain-separated leaves, the odd node promoted, the previous root first', () => {
  const a = { streamId: 's', revision: 0n, hash: 'a'.repeat(64) };
  const b = { streamId: 's', revision: 1n, hash: 'b'.repeat(64) };
  const r1 = anchorRoot('0'.repeat(64), [a]);
  const r2 = anchorRoot('0'.repeat(64), [a, b]);
  assert.is.not(r1, r2);
  assert.is.not(anchorRoot('1'.repeat(64), [a]), r1, 'the previous root is committed to');
  assert.is.not(anchorRoot('0'.repeat(64), [b, a]), r2, 'order matters');
  // A promoted odd node is not a duplicated one: [a, b, b] and [a, b] differ.
  assert.is.not(anchorRoot('0'.repeat(64), [a, b, b]), r2);
  assert.match(r1, /^[0-9a-f]{64}$/);
});

test('an anchor lands on the sandbox network: Horizon shows a memo-hash transaction from the anchoring account; nothing new, no transaction', async () => {
  const store = new PostgresEventStore({ pool: testPgPool(), listen: false });
  const s = `anchor-land-${randomUUID()}`;
  await store.append(s, [ev(0), ev(1)], { expectedRevision: 'no_stream' });
  const made = await anchorUntilCovered(s);
  assert.ok(made.length >= 1);
  const receipt = made[made.length - 1]!;
  assert.is(receipt.status, 'anchored');
  assert.ok(receipt.ledger! > 1);

  // Read it back over HTTP, the way an auditor would, from the sandbox's Horizon.
  const horizon = await serveSandbox();
  try {
    const url = horizon.url;
    const record = (await (await fetch(`${url}/transactions/${receipt.txHash}`)).json()) as Record<string, unknown>;
    assert.is(record.memo_type, 'hash');
    assert.is(Buffer.from(String(record.memo), 'base64').toString('hex'), receipt.root);
    assert.is(record.source_account, keypair.publicKey());
    assert.is(record.successful, true);

    // Verification through a Horizon client (what LEDGER_MODE=horizon uses) agrees.
    const gateway = new LedgerGateway({
      horizonUrl: () => url, networkPassphrase: passphrase, assetCode: 'EURC', assetIssuer: sandbox.keys.issuer.publicKey(),
      platformAccount: sandbox.keys.platform.publicKey(), signingKeypair: sandbox.keys.signing, platformKeypair: sandbox.keys.platform, homeDomain: 'x.test', allowHttp: true,
    });
    assert.ok(gateway.server instanceof Horizon.Server);
    // Pages of 2: the account's history is walked with Horizon cursors, as it is 200 at a time in production.
    const overHttp = new EventAnchor({ pool: testPgPool(), ledger: horizonAnchorLedger(gateway), keypair, networkPassphrase: passphrase, ledgerPageSize: 2 });
    const report = await overHttp.verify([s]);
    assert.is(report.anchors.problems.length, 0, JSON.stringify(report.anchors.problems, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
    assert.is(report.results[0]!.anchored, 2);
    assert.is(report.ok, true);
  } finally {
    await horizon.close();
  }

  // Nothing appended since: no transaction is sent.
  const before = (await sandbox.transactions({ cursor: null, limit: 200, order: 'desc', includeFailed: true }, { account: keypair.publicKey() })) as { _embedded: { records: unknown[] } };
  const again = await anchor.anchorNow();
  if (again.status === 'nothing_to_anchor') {
    const after = (await sandbox.transactions({ cursor: null, limit: 200, order: 'desc', includeFailed: true }, { account: keypair.publicKey() })) as { _embedded: { records: unknown[] } };
    assert.is(after._embedded.records.length, before._embedded.records.length);
  } else assert.is(again.status, 'anchored', 'only another spec appending at the same moment explains an anchor here');
  await store.close();
});

test('the service loop anchors every ANCHOR_INTERVAL_SECONDS by itself, and stops cleanly', async () => {
  const store = new PostgresEventStore({ pool: testPgPool(), listen: false });
  const cfg = { ...config, ANCHOR_INTERVAL_SECONDS: 1 };
  const stop = startAnchoring({ config: cfg, store, pgPool: testPgPool(), ledger: createLedgerGateway(cfg, { url: null }), sandboxLedger: sandbox, logger: createLogger('silent') });
  const s = `anchor-loop-${randomUUID()}`;
  try {
    await store.append(s, [ev(0)], { expectedRevision: 'no_stream' });
    const deadline = Date.now() + 60_000;
    while ((await anchor.verify([s])).results[0]!.notYetAnchored > 0) {
      if (Date.now() > deadline) assert.unreachable('the loop did not anchor within 60 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await stop();
  }
  assert.is((await anchor.verify([s])).results[0]!.anchored, 1);
  await store.close();
});

test('a crash between the receipt and the ledger is settled at the next run: resubmitted when it never left, confirmed when it landed', async () => {
  const store = new PostgresEventStore({ pool: testPgPool(), listen: false });
  const real = sandboxAnchorLedger(sandbox);
  for (const landed of [false, true]) {
    const s = `anchor-crash-${landed}-${randomUUID()}`;
    await store.append(s, [ev(0)], { expectedRevision: 'no_stream' });
    // The process dies around the submission: before it reached the ledger, or after, without the answer.
    const crashing = new EventAnchor({
      pool: testPgPool(), keypair, networkPassphrase: passphrase,
      ledger: { ...real, submit: async (tx) => {
        if (landed) await real.submit(tx);
        throw new LedgerUnavailableError('connection reset');
      } },
    });
    const deadline = Date.now() + 60_000;
    let pending: AnchorReceipt | undefined;
    while (!pending) {
      try {
        await crashing.anchorNow();
      } catch (e) {
        assert.instance(e, LedgerUnavailableError);
      }
      pending = (await anchor.receipts({ limit: 1 })).find((r) => r.status === 'pending');
      if (!pending && Date.now() > deadline) assert.unreachable('no pending receipt');
      if (!pending) await new Promise((r) => setTimeout(r, 100));
    }
    assert.is((await real.transaction(pending.txHash)) !== null, landed);
    await anchorUntilCovered(s);
    const settled = (await anchor.receipt(pending.anchorId))!;
    assert.is(settled.status, 'anchored', 'the same receipt, confirmed');
    assert.is(settled.txHash, pending.txHash);
    assert.is((await anchor.verify([s])).ok, true);
  }
  await store.close();
});

test('one process anchors at a time: with the lock held elsewhere, anchorNow answers busy', async () => {
  const client = await testPgPool().connect();
  try {
    await client.query('SELECT pg_advisory_lock($1, 0)', [0x45414e43]);
    assert.is((await anchor.anchorNow()).status, 'busy');
  } finally {
    await client.query('SELECT pg_advisory_unlock($1, 0)', [0x45414e43]);
    client.release();
  }
});

test('a forged anchored event with every later hash and the head recomputed passes the chain check, and anchored verify names exactly that event; later events are "not yet anchored"', async () => {
  const store = new PostgresEventStore({ pool: testPgPool(), listen: false });
  const s = `anchor-forge-${randomUUID()}`;
  await store.append(s, [ev(0), ev(1), ev(2), ev(3)], { expectedRevision: 'no_stream' });
  await anchorUntilCovered(s);
  await store.append(s, [ev(4), ev(5)], { expectedRevision: 3n });
  const fresh = await anchor.verify([s]);
  assert.is(fresh.ok, true);
  assert.is(fresh.results[0]!.anchored, 4);
  assert.is(fresh.results[0]!.notYetAnchored, 2, 'appended after the last anchor: reported, not verified');
  assert.is(fresh.firstForged, null);

  const original = (await store.readStream(s))[2]!;
  await tamper(s, 2, { i: 2, amount: '999999' }, true);
  try {
    assert.is((await store.verifyStream(s)).ok, true, 'the plain chain is fooled');
    const report = await anchor.verify([s]);
    assert.is(report.ok, false);
    assert.is(report.forged, 1);
    const first = report.firstForged!;
    assert.is(first.streamId, s);
    assert.is(first.revision, 2n);
    assert.is(first.eventId, original.id);
    assert.is(first.position, `${original.position.commit}-${original.position.prepare}`);
    assert.is(report.results[0]!.chain.ok, true);
  } finally {
    await tamper(s, 2, original.data, true);
  }
  assert.is((await anchor.verify([s])).ok, true, 'restored');
  await store.close();
});

test('a receipt edited in the database is caught against the ledger; so are edited leaves and a deleted newest receipt', async () => {
  const store = new PostgresEventStore({ pool: testPgPool(), listen: false });
  const s = `anchor-receipt-${randomUUID()}`;
  await store.append(s, [ev(0)], { expectedRevision: 'no_stream' });
  await anchorUntilCovered(s);
  const pool = testPgPool();
  const receipt = (await anchor.receipts({ limit: 1 }))[0]!;
  const fake = 'f'.repeat(64);

  await pool.query('UPDATE es_anchors SET root = $2 WHERE anchor_id = $1', [receipt.anchorId.toString(), fake]);
  try {
    const report = await anchor.verify([s]);
    assert.is(report.ok, false);
    const problem = report.anchors.problems.find((p) => p.anchorId === receipt.anchorId)!;
    assert.ok(problem, 'the edited receipt is reported');
    assert.is(problem.status, 'forged');
    assert.match(problem.problems.join('\n'), /differs from the ledger memo/);
    assert.is(report.results[0]!.anchored, 1, 'its leaves still hash to the ledger memo: the events stay verified');
  } finally {
    await pool.query('UPDATE es_anchors SET root = $2 WHERE anchor_id = $1', [receipt.anchorId.toString(), receipt.root]);
  }

  const leaf = await pool.query(`SELECT leaf_index, hash FROM es_anchor_leaves WHERE anchor_id = $1 AND stream_id = $2`, [receipt.anchorId.toString(), s]);
  await pool.query('UPDATE es_anchor_leaves SET hash = $3 WHERE anchor_id = $1 AND leaf_index = $2', [receipt.anchorId.toString(), leaf.rows[0].leaf_index, fake]);
  try {
    const report = await anchor.verify([s]);
    assert.is(report.ok, false);
    assert.match(report.anchors.problems.find((p) => p.anchorId === receipt.anchorId)!.problems.join('\n'), /stored leaves/);
    assert.is(report.results[0]!.anchored, 0, 'leaves that do not match the ledger vouch for nothing');
  } finally {
    await pool.query('UPDATE es_anchor_leaves SET hash = $3 WHERE anchor_id = $1 AND leaf_index = $2', [receipt.anchorId.toString(), leaf.rows[0].leaf_index, leaf.rows[0].hash]);
  }

  // Deleting the newest receipt would make its events look "not yet anchored": the ledger still lists the transaction.
  const row = (await pool.query('SELECT * FROM es_anchors WHERE anchor_id = $1', [receipt.anchorId.toString()])).rows[0];
  const leaves = (await pool.query('SELECT * FROM es_anchor_leaves WHERE anchor_id = $1', [receipt.anchorId.toString()])).rows;
  await pool.query('DELETE FROM es_anchors WHERE anchor_id = $1', [receipt.anchorId.toString()]);
  try {
    const report = await anchor.verify([s]);
    assert.is(report.ok, false);
    assert.ok(report.anchors.missingReceipts.includes(receipt.txHash));
    const paged = await new EventAnchor({ pool: testPgPool(), ledger: sandboxAnchorLedger(sandbox), keypair, networkPassphrase: passphrase, ledgerPageSize: 2 }).verify([s]);
    assert.equal(paged.anchors.missingReceipts, [receipt.txHash], 'found however the history is paged');
  } finally {
    const cols = Object.keys(row);
    await pool.query(`INSERT INTO es_anchors (${cols.join(',')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(',')})`, cols.map((c) => row[c]));
    for (const l of leaves) {
      const lc = Object.keys(l);
      await pool.query(`INSERT INTO es_anchor_leaves (${lc.join(',')}) VALUES (${lc.map((_, i) => `$${i + 1}`).join(',')})`, lc.map((c) => l[c]));
    }
  }
  assert.is((await anchor.verify([s])).ok, true, 'restored');
  await store.close();
});

test('the standalone audit script of docs/event-store.md (node:crypto and Horizon HTTP only) checks an anchor and names a forged event', async () => {
  const root = resolve(__dirname, '../../..');
  const store = new PostgresEventStore({ pool: testPgPool(), listen: false });
  const s = `anchor-audit-${randomUUID()}`;
  await store.append(s, [ev(0), ev(1), ev(2)], { expectedRevision: 'no_stream' });
  await anchorUntilCovered(s);
  const anchorId = (await testPgPool().query(`SELECT max(anchor_id)::text AS id FROM es_anchor_leaves WHERE stream_id = $1`, [s])).rows[0].id as string;
  // The documented psql export, run through node-postgres; the auditor chooses which streams to recompute.
  const sql = readFileSync(join(root, 'scripts/audit/anchor-export.sql'), 'utf8').replace(':anchor_id', '$1');
  const exportFor = async () => {
    const exported = (await testPgPool().query(sql, [anchorId])).rows[0].json_build_object;
    const file = join(tmpdir(), `anchor-${randomUUID()}.json`);
    writeFileSync(file, JSON.stringify({ ...exported, streams: { [s]: exported.streams[s] } }));
    return file;
  };
  const horizon = await serveSandbox();
  const audit = (file: string) =>
    new Promise<{ code: number; out: string }>((done) => {
      execFile(process.execPath, [join(root, 'scripts/audit/check-anchor.mjs'), horizon.url, file], (error, stdout) =>
        done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout }),
      );
    });
  const original = (await store.readStream(s))[1]!;
  try {
    const ok = await audit(await exportFor());
    assert.is(ok.code, 0, ok.out);
    assert.match(ok.out, /anchor OK/);
    await tamper(s, 1, { i: 1, amount: '1' }, true);
    const forged = await audit(await exportFor());
    assert.is(forged.code, 1, forged.out);
    assert.match(forged.out, `FORGED: ${s} revision 1 (event ${original.id})`);
  } finally {
    await tamper(s, 1, original.data, true);
    await horizon.close();
  }
  await store.close();
});

test.run();
