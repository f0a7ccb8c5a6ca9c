import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConflictError } from '@cagnotte/domain';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { IdempotencyKeyAnswered, IdempotencyStore, KeyedQueue, PostgresEventStore, WrongExpectedRevisionError, type IdempotencyClaim, type RouteAnswer } from '@cagnotte/infra';
import { onTestTeardown, testPgPool } from '@cagnotte/infra/src/testing/resources';
import { systemMetadata } from '../escrow/runtime';
import { runCommand, type Aggregate, type CommandRuntime } from './run-command';
import { GROUP_COMMIT_CAP } from './group-commit';

/**
 * The engine's group commit on real PostgreSQL. A roster of at most `cap` members stands in for a pool's stock: its
 * fold adds members IN PLACE (as holdings.ts does), so an answer rendered after a later command folded would show
 * that command too. Each "process" is an event store and a command queue of its own (its own lanes and state
 * cache) over the one database.
 */
const test = suite('runCommand: group commit per stream');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Granted = Extract<DomainEvent, { type: 'TenantAuditorGranted' }>;
interface Roster {
  members: Set<string>;
  order: string[];
}
const roster: Aggregate<Roster, Granted> = {
  initial: () => ({ members: new Set(), order: [] }),
  evolve: (state, e) => {
    if (e.type !== 'TenantAuditorGranted') return state;
    state.members.add(e.data.userId);
    state.order.push(e.data.userId);
    return state;
  },
};
const TENANT = randomUUID();
/** Names in the specs, uuids in the events (the schema's Id). */
const ids = new Map<string, string>();
const names = new Map<string, string>();
const idOf = (name: string) => {
  if (!ids.has(name)) {
    const id = randomUUID();
    ids.set(name, id);
    names.set(id, name);
  }
  return ids.get(name)!;
};
const nameIn = (r: { data: unknown }) => names.get((r.data as { userId: string }).userId);
const join = (name: string, cap: number) => (state: Roster): Granted[] => {
  const userId = idOf(name);
  if (state.members.has(userId)) throw new ConflictError('already_member', 'already a member');
  if (state.members.size >= cap) throw new ConflictError('roster_full', 'the roster is full');
  return [{ type: 'TenantAuditorGranted', data: { tenantId: TENANT, userId, grantedAt: new Date().toISOString() } } as Granted];
};
const meta = () => systemMetadata('group-commit-spec', null, new Date().toISOString());
/** The answer as a route would render it from the outcome: who is in, as of this command. */
const respond = (outcome: { state: Roster; revision: bigint; position: unknown }): RouteAnswer => ({
  data: { order: outcome.state.order.map((id) => names.get(id)), revision: Number(outcome.revision), positionInRespond: outcome.position },
});

const pool = () => testPgPool();
const idempotency = () => new IdempotencyStore(pool());
/** A process: its own store instance (head cache), its own command queue; appends counted. */
const aProcess = () => {
  const store = new PostgresEventStore({ pool: pool(), pollMs: 50, listen: false });
  onTestTeardown(() => store.close());
  const counts = { appends: 0 };
  const append = store.append.bind(store);
  const appendWithin = store.appendWithin.bind(store);
  store.append = (...args) => (counts.appends++, append(...args));
  store.appendWithin = (...args) => (counts.appends++, appendWithin(...args));
  const runtime: CommandRuntime = { store, pgPool: pool(), commandQueue: new KeyedQueue() };
  return { runtime, store, counts };
};
/** The value, or the error it failed with (caught at once, so never unhandled). */
const failure = <T>(p: Promise<T>): Promise<T | Error> => p.then((v) => v, (e: Error) => e);
const claimFor = (store: IdempotencyStore, key: string): IdempotencyClaim => store.claim('u:spec', key, `fp-${key}`, 201);
const storedAnswer = async (key: string) =>
  (await pool().query<{ body: { data: { order: string[] } }; headers: Record<string, string> }>('SELECT body, headers FROM idempotency_keys WHERE scope = $1 AND key = $2', ['u:spec', key])).rows[0];

test('one batch: a refusal in the middle refuses only itself; each command its own revision, answer, position and key row; one append', async () => {
  const { runtime, store, counts } = aProcess();
  const keys = idempotency();
  const stream = `roster-${randomUUID()}`;
  const run = (user: string, key: string) => {
    const claim = claimFor(keys, key);
    return { claim, done: runCommand(runtime, stream, roster, join(user, 10), meta(), { respond, idempotency: claim }) };
  };
  const k = randomUUID();
  // Sent in one tick: the lane's first batch takes all four.
  const a = run('a', `${k}-a`);
  const b = run('b', `${k}-b`);
  const again = run('a', `${k}-again`);
  const c = run('c', `${k}-c`);
  const [ra, rb, refused, rc] = await Promise.all([a.done, b.done, failure(again.done), c.done]);
  assert.is(counts.appends, 1, 'one append for the batch');
  assert.instance(refused, ConflictError);
  assert.is((refused as ConflictError).code, 'already_member');
  assert.equal([ra.revision, rb.revision, rc.revision], [0n, 1n, 2n]);
  // Answered right after its own fold: b's answer does not show c, though c was folded into the same state object.
  assert.equal(ra.answer!.data, { order: ['a'], revision: 0, positionInRespond: null });
  assert.equal(rb.answer!.data, { order: ['a', 'b'], revision: 1, positionInRespond: null });
  assert.equal(rc.answer!.data, { order: ['a', 'b', 'c'], revision: 2, positionInRespond: null });
  const recorded = await store.readStream(stream);
  assert.equal(recorded.map(nameIn), ['a', 'b', 'c']);
  for (const [i, r] of [ra, rb, rc].entries()) {
    // The Postgres store reports each event's position: each command's is its own event's, not the batch's last.
    assert.equal(r.position, recorded[i]!.position, 'its own event\'s position');
    assert.is(r.answer!.headers!['X-Event-Position'], `${r.position!.commit}-${r.position!.prepare}`);
  }
  // Keys: one row each for the three that wrote, with the answer and header as sent; none for the refusal.
  for (const [name, claim, r] of [['a', a.claim, ra], ['b', b.claim, rb], ['c', c.claim, rc]] as const) {
    assert.ok(claim.recorded, `${name}'s claim ends recorded (the route does not record again)`);
    const row = await storedAnswer(`${k}-${name}`);
    assert.equal(row?.body.data.order, (r.answer!.data as { order: string[] }).order);
    assert.is(row?.headers['X-Event-Position'], r.answer!.headers!['X-Event-Position']);
  }
  assert.not.ok(again.claim.recorded);
  assert.is(await storedAnswer(`${k}-again`), undefined);
  assert.equal(await store.verifyStream(stream), { ok: true, streamId: stream, checked: 3 });
});

test(`commands arriving while an append is in flight gather into the next batch, at most ${GROUP_COMMIT_CAP} a batch`, async () => {
  const { runtime, store, counts } = aProcess();
  const stream = `roster-${randomUUID()}`;
  await runCommand(runtime, stream, roster, join('first', 1_000), meta());
  counts.appends = 0;
  const n = GROUP_COMMIT_CAP + 50;
  const results = await Promise.all(Array.from({ length: n }, (_, i) => runCommand(runtime, stream, roster, join(`u${i}`, 1_000), meta(), { respond })));
  assert.is(counts.appends, 2, `${n} commands, two appends`);
  assert.equal(results.map((r) => r.revision), Array.from({ length: n }, (_, i) => BigInt(i + 1)));
  assert.is((await store.readStream(stream)).length, n + 1);
});

test('a command that decides nothing answers the revision so far without appending; a command with `within` rows runs alone', async () => {
  const { runtime, store, counts } = aProcess();
  const stream = `roster-${randomUUID()}`;
  const marker = `within-${randomUUID()}`;
  const [a, nothing, alone, b] = await Promise.all([
    runCommand(runtime, stream, roster, join('a', 10), meta(), { respond }),
    runCommand(runtime, stream, roster, () => [], meta(), { respond }),
    runCommand(runtime, stream, roster, join('w', 10), meta(), {
      respond,
      within: async (client) => void (await client.query(`SELECT set_config('cagnotte.spec', $1, true)`, [marker])),
    }),
    runCommand(runtime, stream, roster, join('b', 10), meta(), { respond }),
  ]);
  assert.equal(nothing.answer!.data, { order: ['a'], revision: 0, positionInRespond: null });
  assert.is(nothing.position, null);
  assert.is(nothing.answer!.headers?.['X-Event-Position'], undefined, 'no position: it wrote nothing');
  assert.equal([a.revision, alone.revision, b.revision], [0n, 1n, 2n]);
  assert.is(counts.appends, 3, '[a, nothing] together, then the `within` command alone, then b');
  assert.equal((await store.readStream(stream)).map(nameIn), ['a', 'w', 'b']);
});

test('a stale head (another process appended between the read and the append) makes the whole batch decided again', async () => {
  const one = aProcess();
  const other = aProcess();
  const stream = `roster-${randomUUID()}`;
  await runCommand(one.runtime, stream, roster, join('seed', 3), meta());
  // The other process appends 'x' while this one's batch has read the tail and not yet appended.
  const read = one.store.readStream.bind(one.store);
  let raced = false;
  one.store.readStream = async (...args) => {
    const events = await read(...args);
    if (!raced) {
      raced = true;
      await runCommand(other.runtime, stream, roster, join('x', 3), meta());
    }
    return events;
  };
  const [x, y, z] = await Promise.all(['x', 'y', 'z'].map((u) => failure(runCommand(one.runtime, stream, roster, join(u, 3), meta(), { respond }).then((r) => r.answer!.data))));
  // First decision (stale): x and y in, z refused (full), and the append conflicts. Again on the fresh tail: x is in
  // already, y takes the last place, z is refused.
  assert.instance(x, ConflictError);
  assert.is((x as unknown as ConflictError).code, 'already_member');
  assert.equal(y, { order: ['seed', 'x', 'y'], revision: 2, positionInRespond: null });
  assert.instance(z, ConflictError);
  assert.is((z as unknown as ConflictError).code, 'roster_full');
  const recorded = await one.store.readStream(stream);
  assert.equal(recorded.map(nameIn), ['seed', 'x', 'y']);
});

test('a key answered by a request that committed first: the batch runs one command at a time, only that one fails', async () => {
  const { runtime, store } = aProcess();
  const keys = idempotency();
  const stream = `roster-${randomUUID()}`;
  const k = randomUUID();
  // A duplicate request with key b committed first (its answer is there).
  await keys.insert(pool(), claimFor(keys, `${k}-b`), { status: 201, body: { success: true, data: { first: true } }, headers: {} });
  const claims = ['a', 'b', 'c'].map((u) => claimFor(keys, `${k}-${u}`));
  const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((u, i) => failure(runCommand(runtime, stream, roster, join(u, 10), meta(), { respond, idempotency: claims[i] }))));
  assert.not.instance(a, Error);
  assert.instance(b, IdempotencyKeyAnswered);
  assert.not.instance(c, Error);
  assert.equal((await store.readStream(stream)).map(nameIn), ['a', 'c']);
  assert.ok(claims[0]!.recorded && claims[2]!.recorded);
  assert.equal((await storedAnswer(`${k}-c`))?.body.data.order, ['a', 'c']);
});

test('a respond that throws after its command folded fails that command; the batch starts over without it', async () => {
  const { runtime, store } = aProcess();
  const stream = `roster-${randomUUID()}`;
  const broken = () => {
    throw new Error('render failed');
  };
  const [a, b, c] = await Promise.all([
    runCommand(runtime, stream, roster, join('a', 10), meta(), { respond }),
    failure(runCommand(runtime, stream, roster, join('b', 10), meta(), { respond: broken })),
    runCommand(runtime, stream, roster, join('c', 10), meta(), { respond }),
  ]);
  assert.is((b as Error).message, 'render failed');
  assert.equal(c.answer!.data, { order: ['a', 'c'], revision: 1, positionInRespond: null });
  assert.is(a.revision, 0n);
  assert.equal((await store.readStream(stream)).map(nameIn), ['a', 'c']);
});

test('race: three processes, random pauses between read and append, many rounds: never past the cap, no member twice, revisions dense, each answer its event', async () => {
  const ROUNDS = 6;
  const CAP = 20;
  const BUYERS = 60;
  let conflicts = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const processes = Array.from({ length: 3 }, () => {
      const p = aProcess();
      const read = p.store.readStream.bind(p.store);
      p.store.readStream = async (...args) => {
        const events = await read(...args);
        await sleep(Math.random() * 15);
        return events;
      };
      const append = p.store.append.bind(p.store);
      p.store.append = async (...args) => {
        try {
          return await append(...args);
        } catch (error) {
          if (error instanceof WrongExpectedRevisionError) conflicts++;
          throw error;
        }
      };
      return p;
    });
    const stream = `roster-${randomUUID()}`;
    const outcomes = await Promise.all(
      Array.from({ length: BUYERS }, async (_, i) => {
        await sleep(Math.random() * 30);
        const p = processes[i % 3]!;
        // Every buyer asks twice (a double click): at most one of the two may get in.
        const user = `u${i}`;
        return Promise.all([0, 1].map(() => failure(runCommand(p.runtime, stream, roster, join(user, CAP), meta(), { respond, deadlineMs: 30_000 }).then((r) => ({ user, r })))));
      }),
    );
    const results = outcomes.flat();
    const accepted = results.filter((x): x is { user: string; r: Awaited<ReturnType<typeof runCommand<Roster, Granted>>> } => !(x instanceof Error));
    const refused = results.filter((x) => x instanceof Error) as Error[];
    const recorded = await processes[0]!.store.readStream(stream);
    assert.is(recorded.length, CAP, `round ${round}: exactly the cap joined`);
    assert.equal(recorded.map((r) => r.revision), Array.from({ length: CAP }, (_, i) => BigInt(i)), 'revisions dense');
    assert.is(new Set(recorded.map(nameIn)).size, CAP, 'no member twice');
    assert.is(accepted.length, CAP, 'one acceptance per event');
    for (const { user, r } of accepted) assert.is(nameIn(recorded[Number(r.revision)]!), user, 'the answer names its own event');
    for (const e of refused) assert.ok(e instanceof ConflictError, `refusals only: ${e.message}`);
    assert.ok((await processes[0]!.store.verifyStream(stream)).ok);
  }
  console.log(`    ${ROUNDS} rounds, ${conflicts} conflicts between processes re-decided`);
  assert.ok(conflicts > 0, 'the processes did race');
});

test.run();
