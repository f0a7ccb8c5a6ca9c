import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../config';
import { SandboxLedger, sandboxKeys } from '@cagnotte/sandbox-ledger';
import { testKnex, testPgPool } from '../testing/resources';
import { tamper } from '../testing/tamper';
import { EventAnchor, sandboxAnchorLedger } from './anchor';
import { PostgresEventStore } from './postgres';
import type { NewEvent } from './port';

/**
 * `events verify` on streams whose numbers cross decimal digits: revisions 9→10, 99→100, 999→1000, anchor ids past
 * 9, and one transaction whose global positions cross a power of ten while anchors are cut into small batches. A
 * number ordered as text ("10" < "9") breaks every chain of 11 events or more and names untouched events forged;
 * these streams must verify, by the anchored check the CLI runs and by the plain chain check alike.
 */
const config = loadConfig();
const passphrase = config.STELLAR_NETWORK_PASSPHRASE;
const keypair = sandboxKeys(passphrase).anchor;
const sandbox = new SandboxLedger(testKnex(), { passphrase, assetCode: config.STELLAR_ASSET_CODE });
const ledger = sandboxAnchorLedger(sandbox);
const anchor = new EventAnchor({ pool: testPgPool(), ledger, keypair, networkPassphrase: passphrase });
/** Small anchors: a thousand events take several, so anchor ids pass 9 and a batch ends inside one transaction. */
const smallAnchors = new EventAnchor({ pool: testPgPool(), ledger, keypair, networkPassphrase: passphrase, maxLeaves: 97 });
const store = new PostgresEventStore({ pool: testPgPool(), listen: false });

const LENGTHS = [1, 9, 10, 11, 99, 100, 1000];
const BATCH = 250;

const ev = (i: number): NewEvent => ({
  id: randomUUID(),
  type: 'AnchorLengthProbe',
  schemaVersion: 1,
  data: { i, amount: `${i}00` },
  metadata: { tenantId: null, actor: { kind: 'system', id: 'anchor-lengths-spec' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() },
});

/** A stream of n events, appended in batches (one transaction each). */
const buildStream = async (n: number): Promise<string> => {
  const s = `anchor-len-${n}-${randomUUID()}`;
  for (let from = 0; from < n; from += BATCH) {
    const events = Array.from({ length: Math.min(BATCH, n - from) }, (_, k) => ev(from + k));
    await store.append(s, events, { expectedRevision: from === 0 ? 'no_stream' : BigInt(from - 1) });
  }
  return s;
};

/** Anchors until every named stream is covered (a transaction still open elsewhere holds the feed back: wait, never skip). */
const anchorUntilCovered = async (by: EventAnchor, streams: string[]) => {
  const deadline = Date.now() + 60_000;
  for (;;) {
    await by.anchorNow();
    const report = await anchor.verify(streams);
    if (report.results.every((r) => r.notYetAnchored === 0)) return;
    if (Date.now() > deadline) throw new Error(`not anchored within 60 s: ${JSON.stringify(report.results.filter((r) => r.notYetAnchored > 0).map((r) => r.streamId))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

const test = suite('events verify on streams of 1 to 1,000 events (numbers crossing decimal digits)');
const streams = new Map<number, string>();

test.before(async () => {
  // Whatever other specs left unanchored goes into one anchor first, so the small anchors below hold only these streams.
  await anchor.anchorNow();
  // The next global positions run up to a power of ten: the thousand-event stream's third batch, one transaction,
  // crosses it (…9999 → …10000), and an anchor of 97 leaves ends inside that transaction.
  const max = BigInt((await testPgPool().query<{ n: string }>('SELECT coalesce(max(global_position), 0)::text AS n FROM es_events')).rows[0]!.n);
  let power = 10n;
  while (power < max + 2_000n) power *= 10n;
  await testPgPool().query(`SELECT setval(pg_get_serial_sequence('es_events', 'global_position'), $1)`, [(power - 600n).toString()]);
  for (const n of [...LENGTHS].reverse()) streams.set(n, await buildStream(n));
});

test('every stream verifies: no broken chain, no forged event, every event anchored; the plain chain check agrees; the anchors chain', async () => {
  const before = (await anchor.receipts({ limit: 1 }))[0]?.anchorId ?? 0n;
  await anchorUntilCovered(smallAnchors, [...streams.values()]);
  const made = (await anchor.receipts({ limit: 1 }))[0]!.anchorId - before;
  assert.ok(made >= 11n, `1,230 events in anchors of 97 leaves: ${made} anchors`);

  const report = await anchor.verify([...streams.values()]);
  for (const [n, s] of streams) {
    const r = report.results.find((x) => x.streamId === s)!;
    assert.equal(r.chain, { ok: true }, `${n} events: the stored chain`);
    assert.is(r.firstForged, null, `${n} events: nothing forged`);
    assert.is(r.checked, n);
    assert.is(r.anchored, n, `${n} events: every one anchored`);
    assert.is(r.ok, true);
    assert.is((await store.verifyStream(s)).ok, true, `${n} events: the plain chain check (the history's rule) agrees`);
  }
  assert.is(report.broken, 0);
  assert.is(report.forged, 0);
  assert.equal(report.anchors.problems, [], 'every receipt follows the previous one, in anchor id order');
  assert.is(report.ok, true);

  // The receipts list newest first, by number.
  const ids = (await anchor.receipts({ limit: 20 })).map((r) => r.anchorId);
  assert.equal(ids, [...ids].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
});

test('a tampered event of a long stream is still named: revision 10 of 11, and revision 999 of 1,000', async () => {
  for (const [n, revision] of [[11, 10], [1000, 999]] as const) {
    const s = streams.get(n)!;
    const original = (await store.readStream(s))[revision]!;
    assert.is(original.revision, BigInt(revision));

    // Content edited, hashes left: both checks break at that revision.
    await tamper(s, revision, { i: revision, amount: '999999' }, false);
    try {
      const plain = await store.verifyStream(s);
      assert.is(plain.ok, false);
      assert.is(!plain.ok && plain.brokenAt, BigInt(revision));
      const report = await anchor.verify([s]);
      assert.is(report.broken, 1);
      const r = report.results[0]!;
      assert.equal(r.chain.ok ? null : r.chain.brokenAt, BigInt(revision), `${n} events: the chain breaks at ${revision}`);
      assert.is(r.firstForged?.revision, BigInt(revision));
    } finally {
      await tamper(s, revision, original.data, false);
    }

    // Every later hash and the head recomputed: the plain chain is fooled, the anchors are not.
    await tamper(s, revision, { i: revision, amount: '999999' }, true);
    try {
      assert.is((await store.verifyStream(s)).ok, true, 'the plain chain is fooled');
      const report = await anchor.verify([s]);
      assert.is(report.ok, false);
      const first = report.firstForged!;
      assert.is(first.revision, BigInt(revision), `${n} events: revision ${revision} named`);
      assert.is(first.eventId, original.id);
      assert.is(first.position, `${original.position.commit}-${original.position.prepare}`);
    } finally {
      await tamper(s, revision, original.data, true);
    }
    assert.is((await anchor.verify([s])).ok, true, 'restored');
  }
});

test.after(async () => {
  await store.close();
});

test.run();
