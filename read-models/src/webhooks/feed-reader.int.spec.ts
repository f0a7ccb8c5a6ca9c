import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import knexFactory, { type Knex } from 'knex';
import { decodeCursor, encodeCursor, type FeedPosition } from './cursor';
import { FEED_TABLE, PublicFeedReader } from './feed-reader';
import type { EventPrincipal } from './principal';

/**
 * The feed on real PostgreSQL: rows inserted into rm_public_events as the projection writes them, read back through
 * PublicFeedReader. Each test has tenants of its own and positions no other test uses (a random prepare position).
 */
const test = suite('webhooks: PublicFeedReader');

let knex: Knex;
let reader: PublicFeedReader;
test.before(() => {
  knex = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', pool: { min: 0, max: 2 } });
  reader = new PublicFeedReader(knex);
});
test.after(async () => {
  await knex.destroy();
});

/** A prepare position of this test's own (the table's key is the position, across tenants). */
const freshPrepare = () => BigInt(1_000_000_000 + Math.floor(Math.random() * 1_000_000_000)) * 1000n;

interface Row {
  commit: bigint;
  prepare: bigint;
  idx?: number;
  tenant: string;
  owner?: string | null;
  type?: string;
  subject?: string;
  sequence?: number;
}

const insert = async (...rows: Row[]) => {
  await knex(FEED_TABLE).insert(
    rows.map((r) => ({
      commit_position: knex.raw('?::text::xid8', [r.commit.toString()]),
      prepare_position: r.prepare.toString(),
      idx: r.idx ?? 0,
      id: `evt_${randomUUID().replace(/-/g, '')}`,
      tenant_id: r.tenant,
      owner_id: r.owner ?? null,
      type: r.type ?? 'pool.published',
      subject: r.subject ?? randomUUID(),
      sequence: String(r.sequence ?? 0),
      api_version: '2026-11-01',
      created_at: new Date('2026-11-20T10:00:00Z'),
      data: { n: Number(r.prepare % 1000n) },
    })),
  );
};

const auditor = (tenantId: string): EventPrincipal => ({ kind: 'auditor', tenantId, ownerId: null, actorId: randomUUID(), livemode: false, deploymentLive: false });
const organiser = (tenantId: string, ownerId: string): EventPrincipal => ({ kind: 'organiser', tenantId, ownerId, actorId: ownerId, livemode: false, deploymentLive: false });
const positions = (items: { cursor: string }[]) => items.map((i) => decodeCursor(i.cursor)!);
const at = (commit: bigint, prepare: bigint, idx = 0): FeedPosition => ({ commit, prepare, idx });

test('given events of two tenants, when each reads, then only its own come back, from the start and whatever the cursor', async () => {
  const a = randomUUID();
  const b = randomUUID();
  const p = freshPrepare();
  await insert(
    { commit: 100n, prepare: p + 1n, tenant: a },
    { commit: 100n, prepare: p + 2n, tenant: b },
    { commit: 101n, prepare: p + 3n, tenant: a },
    { commit: 102n, prepare: p + 4n, tenant: b },
  );
  const all = await reader.page(auditor(a), { after: null, limit: 100 });
  assert.equal(positions(all.items), [at(100n, p + 1n), at(101n, p + 3n)]);
  assert.ok(all.items.every((i) => i.event.tenant === a));
  // A cursor taken from the other tenant's feed names a place in commit order, nothing more.
  const fromB = await reader.page(auditor(a), { after: at(100n, p + 2n), limit: 100 });
  assert.equal(positions(fromB.items), [at(101n, p + 3n)]);
  for (const cursor of [at(0n, 0n), at(99n, 0n), at(100n, p + 2n), at(102n, p + 4n)]) {
    const page = await reader.page(auditor(b), { after: cursor, limit: 100 });
    assert.ok(page.items.every((i) => i.event.tenant === b), 'never the other tenant');
  }
  assert.is((await reader.page(auditor(randomUUID()), { after: null, limit: 100 })).items.length, 0, 'a tenant with no events reads none');
});

test('given events at commit 9 and commit 10, then 9 comes first and a cursor at 9 reads 10 (numbers, not text)', async () => {
  const t = randomUUID();
  const p = freshPrepare();
  // Inserted 10 first, with the smaller prepare position: only the commit order may decide.
  await insert({ commit: 10n, prepare: p + 1n, tenant: t, type: 'pool.closed' }, { commit: 9n, prepare: p + 500n, tenant: t, type: 'pool.published' });
  const page = await reader.page(auditor(t), { after: null, limit: 10 });
  assert.equal(page.items.map((i) => i.event.type), ['pool.published', 'pool.closed']);
  const after9 = await reader.page(auditor(t), { after: decodeCursor(page.items[0]!.cursor), limit: 10 });
  assert.equal(after9.items.map((i) => i.event.type), ['pool.closed']);
  // One at a time, then an empty page that keeps the cursor where it was.
  const one = await reader.page(auditor(t), { after: null, limit: 1 });
  const two = await reader.page(auditor(t), { after: decodeCursor(one.nextCursor!), limit: 1 });
  const three = await reader.page(auditor(t), { after: decodeCursor(two.nextCursor!), limit: 1 });
  assert.equal([...one.items, ...two.items].map((i) => i.event.type), ['pool.published', 'pool.closed']);
  assert.equal(three.items, []);
  assert.is(three.nextCursor, two.nextCursor, 'an empty page never goes back');
  assert.is((await reader.page(auditor(randomUUID()), { after: null, limit: 1 })).nextCursor, null, 'empty from the start: null');
});

test('given several public events of one internal event, then they follow idx as a number', async () => {
  const t = randomUUID();
  const p = freshPrepare();
  await insert(...[10, 2, 9, 0, 1].map((idx) => ({ commit: 50n, prepare: p, idx, tenant: t, type: `x.e${idx}` })));
  const page = await reader.page(auditor(t), { after: at(50n, p, 1), limit: 10 });
  assert.equal(page.items.map((i) => i.event.type), ['x.e2', 'x.e9', 'x.e10']);
});

test("given an organiser, then they read only their own resources' events; an auditor reads all", async () => {
  const t = randomUUID();
  const mine = randomUUID();
  const theirs = randomUUID();
  const p = freshPrepare();
  await insert({ commit: 1n, prepare: p + 1n, tenant: t, owner: mine }, { commit: 1n, prepare: p + 2n, tenant: t, owner: theirs }, { commit: 1n, prepare: p + 3n, tenant: t, owner: null });
  assert.equal(positions((await reader.page(organiser(t, mine), { after: null, limit: 10 })).items), [at(1n, p + 1n)]);
  assert.is((await reader.page(auditor(t), { after: null, limit: 10 })).items.length, 3);
  assert.is((await reader.page(organiser(randomUUID(), mine), { after: null, limit: 10 })).items.length, 0, 'their id in another tenant: nothing');
});

test('given types filters, then exact types and prefix globs select, `*` takes all, and a glob is a prefix of whole segments', async () => {
  const t = randomUUID();
  const p = freshPrepare();
  const types = ['pool.published', 'reservation.paid', 'reservation.expired', 'reservations.paid', 'reservation_x.paid', 'reservationx.paid', 'payout.settled'];
  await insert(...types.map((type, i) => ({ commit: 7n, prepare: p + BigInt(i), tenant: t, type })));
  const read = async (filter: string[]) => (await reader.page(auditor(t), { after: null, types: filter, limit: 50 })).items.map((i) => i.event.type);
  assert.equal(await read(['reservation.*']), ['reservation.paid', 'reservation.expired']);
  assert.equal(await read(['reservation.paid', 'payout.settled']), ['reservation.paid', 'payout.settled']);
  assert.equal(await read(['pool.*', 'payout.settled']), ['pool.published', 'payout.settled']);
  assert.equal(await read(['reservation_x.*']), ['reservation_x.paid'], 'an underscore is a letter, not a LIKE wildcard');
  assert.equal(await read(['*']), types);
  assert.equal(await read([]), types);
  assert.equal(await read(['dispute.opened']), []);
});

test('given a subject, then only its events, in order, with their sequence', async () => {
  const t = randomUUID();
  const subject = randomUUID();
  const p = freshPrepare();
  await insert(
    { commit: 3n, prepare: p + 1n, tenant: t, subject, sequence: 4, type: 'reservation.placed' },
    { commit: 3n, prepare: p + 2n, tenant: t, type: 'reservation.placed' },
    { commit: 4n, prepare: p + 3n, tenant: t, subject, sequence: 5, type: 'reservation.paid' },
  );
  const page = await reader.page(auditor(t), { after: null, subject, limit: 10 });
  assert.equal(page.items.map((i) => [i.event.type, i.event.sequence, i.event.subject]), [['reservation.placed', 4, subject], ['reservation.paid', 5, subject]]);
  const e = page.items[0]!.event;
  assert.equal(Object.keys(e), ['id', 'type', 'createdAt', 'tenant', 'subject', 'sequence', 'apiVersion', 'data']);
  assert.is(e.createdAt, '2026-11-20T10:00:00.000Z');
  assert.is(e.apiVersion, '2026-11-01');
  assert.is(page.nextCursor, encodeCursor(at(4n, p + 3n)));
});

test("given the operator's read, then every tenant's events in commit order, or one tenant's", async () => {
  const a = randomUUID();
  const b = randomUUID();
  const p = freshPrepare();
  await insert({ commit: 20n, prepare: p + 1n, tenant: a }, { commit: 21n, prepare: p + 2n, tenant: b }, { commit: 22n, prepare: p + 3n, tenant: a });
  const from = at(19n, p);
  const all = await reader.operatorPage(null, { after: from, limit: 1000 });
  const mine = all.items.filter((i) => i.event.tenant === a || i.event.tenant === b).map((i) => decodeCursor(i.cursor));
  assert.equal(mine, [at(20n, p + 1n), at(21n, p + 2n), at(22n, p + 3n)]);
  assert.equal(positions((await reader.operatorPage(b, { after: null, limit: 10 })).items), [at(21n, p + 2n)]);
});

test.run();
