/**
 * Group commit under kill -9. The API runs as a child process (`pnpm start`); a burst of buyers reserve one unit each
 * of a pool that has 20, each request with its own Idempotency-Key, so that the pool's stream takes them in batches
 * (many commands, one append). A first wave of 5 is answered; then the burst, and the server is killed with SIGKILL
 * the moment the burst's first append commits, with the batches behind it being decided and appended, then started again, and every request is retried with its key until it gets a
 * definite answer. Then: exactly 20 units held and never more, each 201's reservation on the stream exactly once, no
 * key holding two, every answer given before the crash given again (replayed) after it, and the stream's revisions
 * dense with its hash chain intact.
 *
 * Bounded for CI: GROUP_CRASH_REQUESTS (default 1,000; at least 200) requests from 20 buyers.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, startApi, type ApiResponse, type TestApi, type TestUser } from './harness';
import { ChildServer, freePort } from './child-server';

const REQUESTS = Math.max(200, Number(process.env.GROUP_CRASH_REQUESTS ?? 1_000));
const BUYERS = 20;
/** Reservations answered before the burst (and before the kill). */
const FIRST_WAVE = 5;
const STOCK = 20;
const OP_DEADLINE_MS = 120_000;

const test = suite<{ api: TestApi; organiser: TestUser; buyers: TestUser[] }>('e2e: group commit of reservations across kill -9 of the server');

test.before(async (ctx) => {
  ctx.api = await startApi();
  const tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(tenant, { role: 'organiser' });
  ctx.buyers = [];
  for (let i = 0; i < BUYERS; i += 10) ctx.buyers.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => ctx.api.user(tenant, { name: `Burst Buyer ${i + j}` })))));
});

test.after(async (ctx) => ctx.api.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Op {
  key: string;
  buyer: TestUser;
  /** The answer the burst got before the kill, if any. */
  before?: ApiResponse<any>;
  /** The definite answer after the restart. */
  after?: ApiResponse<any>;
}

test(`${REQUESTS} buyers reserve 1 of ${STOCK} units each, kill -9 mid-burst, every request retried with its key: 20 held, none twice, answers kept`, async (ctx) => {
  const { api, organiser, buyers } = ctx;
  const run = randomUUID().slice(0, 8);
  const created = await api.call('POST', '/api/pools', {
    token: organiser.token,
    tenant: organiser.tenant,
    body: { type: 'GROUPS', title: `burst-${run}`, config: { units: [{ id: 'u', label: 'Unit', price: '2.50', quantity: STOCK }] } },
  });
  assert.is(created.status, 201, created.text);
  const poolId = created.body.data.id as string;
  assert.is((await api.call('POST', `/api/pools/${poolId}/publish`, { token: organiser.token, tenant: organiser.tenant })).status, 200);

  const server = new ChildServer(await freePort(), { DEFAULT_TENANT: `burst-${run}` });
  const send = (op: Op) =>
    call(server.url, 'POST', `/api/pools/${poolId}/reservations`, { token: op.buyer.token, tenant: organiser.tenant, body: { lines: [{ unitId: 'u', quantity: 1 }] }, headers: { 'idempotency-key': op.key } });
  /** A 2xx or a 4xx is definite; a lost connection, a 5xx or a key still in flight is retried. */
  const definite = (res: ApiResponse<any> | null): res is ApiResponse<any> => !!res && res.status < 500 && res.body?.code !== 'idempotency_key_in_flight';
  const ops: Op[] = Array.from({ length: REQUESTS }, (_, i) => ({ key: `burst-${run}-${i}`, buyer: buyers[i % BUYERS]! }));

  const placedNow = async () =>
    Number((await api.services.pgPool.query<{ n: string }>(`SELECT count(*) AS n FROM es_events WHERE stream_id = $1 AND type = 'ReservationPlaced'`, [`pool-${poolId}`])).rows[0]!.n);
  const started = Date.now();
  const lap = (what: string) => console.log(`    ${what} at ${((Date.now() - started) / 1000).toFixed(1)} s`);

  try {
    await server.start();
    lap('server up');
    // A first wave is answered (201) before the burst: those answers must come back after the crash.
    const wave = ops.slice(0, FIRST_WAVE);
    await Promise.all(wave.map(async (op) => (op.before = await send(op))));
    for (const op of wave) assert.is(op.before!.status, 201, op.before!.text);
    const burst = Promise.all(
      ops.slice(FIRST_WAVE).map(async (op) => {
        const res = await send(op).catch(() => null);
        if (definite(res)) op.before = res;
      }),
    );
    // The burst's first append has committed: the commands queued behind it are being decided and appended now.
    const deadline = Date.now() + 60_000;
    while ((await placedNow()) <= FIRST_WAVE && Date.now() < deadline) await sleep(2);
    await server.kill();
    const placedAtKill = await placedNow();
    await burst;
    lap(`killed with ${placedAtKill} reservations committed`);
    const answeredBefore = ops.filter((o) => o.before);
    const heldBefore = answeredBefore.filter((o) => o.before!.status === 201);
    assert.ok(placedAtKill < STOCK, 'the kill came before the stock was taken: batches were still to commit');
    assert.ok(answeredBefore.length < ops.length, 'the kill came while requests were in flight');

    await server.start();
    // Every request again with its key, until a definite answer.
    lap('server up again');
    await Promise.all(
      ops.map(async (op) => {
        const deadline = Date.now() + OP_DEADLINE_MS;
        while (!op.after) {
          if (Date.now() > deadline) throw new Error(`no definite answer for ${op.key} within ${OP_DEADLINE_MS} ms`);
          const res = await send(op).catch(() => null);
          if (definite(res)) op.after = res;
          else await sleep(100 + Math.random() * 200);
        }
      }),
    );

    lap('every request answered');
    const statuses = ops.reduce<Record<string, number>>((m, o) => ({ ...m, [`${o.after!.status} ${o.after!.body?.code ?? ''}`.trim()]: (m[`${o.after!.status} ${o.after!.body?.code ?? ''}`.trim()] ?? 0) + 1 }), {});
    const wins = ops.filter((o) => o.after!.status === 201);
    assert.equal(Object.keys(statuses).sort(), ['201', '409 insufficient_stock'], `final answers: ${JSON.stringify(statuses)}`);

    // The stream: dense revisions, an intact hash chain, exactly STOCK reservations, each one a 201's.
    const stream = `pool-${poolId}`;
    const events = await api.services.store.readStream(stream);
    assert.equal(events.map((e) => e.revision), events.map((_, i) => BigInt(i)), 'revisions dense from 0');
    assert.ok((await api.services.store.verifyStream(stream)).ok, 'the hash chain verifies');
    const placed = events.filter((e) => e.type === 'ReservationPlaced').map((e) => (e.data as { reservationId: string }).reservationId);
    assert.is(placed.length, STOCK, `exactly ${STOCK} units held (enough demand), never more`);
    assert.is(new Set(placed).size, STOCK, 'each reservation placed once');
    const answeredIds = wins.map((o) => o.after!.body.data.id as string);
    assert.is(wins.length, STOCK, 'one 201 per unit');
    assert.is(new Set(answeredIds).size, STOCK, 'no two keys answered with one reservation, no key with two');
    assert.equal([...answeredIds].sort(), [...placed].sort(), "every 201's reservation is on the stream, and every reservation on it is a 201's");

    // A key answered before the kill answers the same after it, replayed.
    let changed = 0;
    let notReplayed = 0;
    for (const op of heldBefore) {
      if (op.after!.status !== 201 || op.after!.body.data.id !== op.before!.body.data.id) changed++;
      if (op.after!.headers.get('idempotent-replayed') !== 'true') notReplayed++;
    }
    // Commands decided together: some commit (transaction) holds more than one reservation.
    const commits = (await api.services.pgPool.query<{ n: string }>(
      `SELECT count(*) AS n FROM es_events WHERE stream_id = $1 AND type = 'ReservationPlaced' GROUP BY transaction_id`,
      [stream],
    )).rows.map((r) => Number(r.n));
    console.log(
      `    ${REQUESTS} requests: ${answeredBefore.length} answered before the kill (${heldBefore.length} held, ${placedAtKill} committed), the rest retried; ` +
        `${STOCK} reservations in ${commits.length} commits (largest ${Math.max(...commits)}); final ${JSON.stringify(statuses)}`,
    );
    assert.is(changed, 0, 'a reservation answered before the kill is the one answered after it');
    assert.is(notReplayed, 0, 'and it is replayed (Idempotent-Replayed: true)');
    assert.ok(Math.max(...commits) > 1, 'the burst was appended in batches');
  } finally {
    await server.kill('SIGTERM');
  }
});

test.run();
