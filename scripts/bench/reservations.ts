import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { createTenant, registerUser } from '@cagnotte/command-api';
import { foldPool as foldDomainPool, unitCounts, totalOf } from '@cagnotte/domain';
import { parseEvent, type PoolEvent } from '@cagnotte/event-schemas';
import { createServices, loadConfig, type Services } from '@cagnotte/infra';
import { createProjectorRunner } from '@cagnotte/projectors';
import { fmtMs, fmtRate, freshDatabase, latency, nowMs, table, type Latency, type SummaryRow } from './lib';
import { json, startServer, stopServer } from './http';
import { fundedWallet, linkWallet, signXdr, type Wallet } from '../e2e/wallet';

/**
 * Reservations over HTTP, against the embedded API in a child process: reserve alone across 100 pools and on one
 * hot pool (closed loop), reserve + sign + pay on the sandbox ledger, beside two baselines of the same run (the raw
 * append of one event, and GET /api/pools/{id}). After the hot run the pool's stream is folded: held + paid units
 * never exceed the stock (0 oversold).
 */
export interface ReservationBenchOptions {
  url: string;
  seconds: number;
  concurrency: number;
}

const TARGET_SPREAD_RPS = 1_500;
const TARGET_HOT_RPS = 500;
const TARGET_P99_MS = 50;
const TARGET_HOT_P99_MS = 100;
const TARGET_FLOWS = 150;
const HOT_STOCK = 1_000_000;
/** The flash sale: this many buyers race at once for RACE_STOCK units (one each). */
const RACE_BUYERS = 1_000;
const RACE_STOCK = 20;

interface Run {
  sent: number;
  ok: number;
  refused: number;
  errors: Record<string, number>;
  rps: number;
  latency: Latency;
}

const post = (agent: http.Agent, port: number, path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; text: string }> =>
  new Promise((resolve) => {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const req = http.request(
      { agent, host: '127.0.0.1', port, path, method: body === undefined ? 'GET' : 'POST', headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: 0, text: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end(payload);
  });

/** `concurrency` clients, each sending its next request when the last one answered, for `seconds`. */
const closedLoop = async (concurrency: number, seconds: number, one: (agent: http.Agent, i: number) => Promise<{ status: number }>, okStatus: number): Promise<Run> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const samples: number[] = [];
  const errors: Record<string, number> = {};
  let ok = 0;
  let refused = 0;
  let n = 0;
  const started = nowMs();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (nowMs() < deadline) {
        const at = nowMs();
        const r = await one(agent, n++);
        samples.push(nowMs() - at);
        if (r.status === okStatus) ok++;
        else if (r.status === 409) refused++;
        else errors[String(r.status)] = (errors[String(r.status)] ?? 0) + 1;
      }
    }),
  );
  const elapsed = (nowMs() - started) / 1000;
  agent.destroy();
  return { sent: samples.length, ok, refused, errors, rps: ok / elapsed, latency: latency(samples) };
};

const meta = () => ({ actor: { kind: 'operator' as const, id: 'bench' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });

const prepare = async (services: Services, port: number, payerCount: number) => {
  const runner = createProjectorRunner(services);
  const slug = `bench-${randomUUID().slice(0, 8)}`;
  const { tenant } = await createTenant(services, { slug, whiteLabel: true, approvedOrigins: [] }, meta());
  const password = 'correct horse battery';
  const register = async (role: 'user' | 'organiser', name: string) => {
    const email = `${name}-${randomUUID().slice(0, 8)}@example.test`;
    await registerUser(services, { tenantId: tenant.tenantId, email, password, phone: null, displayName: name, role, accountType: 'CONSUMER', signupSource: 'bench' }, meta());
    return email;
  };
  const organiserEmail = await register('organiser', 'organiser');
  const buyerEmails = await Promise.all(Array.from({ length: 64 }, (_, i) => register('user', `buyer${i}`)));
  await runner.catchUp();
  const tenantHeader = { 'x-service-tenant': slug };
  const login = async (email: string) => String((await json(port, 'POST', '/api/auth/login/password', tenantHeader, { email, password })).body.data.token);
  const base = `http://127.0.0.1:${port}`;
  const organiserToken = await login(organiserEmail);
  await linkWallet(base, organiserToken, await fundedWallet(base, services));
  const auth = { ...tenantHeader, authorization: `Bearer ${organiserToken}` };
  const pool = async (i: number, quantity: number | null) => {
    const created = await json(port, 'POST', '/api/pools', auth, { type: 'GROUPS', title: `Bench pool ${i}`, config: { units: [{ id: 'u', label: 'Unit', price: '1.50', quantity }] } });
    const id = String(created.body.data.id);
    await json(port, 'POST', `/api/pools/${id}/publish`, auth);
    return id;
  };
  const spread: string[] = [];
  for (let i = 0; i < 100; i++) spread.push(await pool(i, null));
  const hot = await pool(100, HOT_STOCK);
  const race = await pool(101, RACE_STOCK);
  const buyers = await Promise.all(buyerEmails.map(login));
  // Buyers with wallets for the full flow on the ledger, as many as requests in flight elsewhere (eight set up at a time).
  const payerEmails = await Promise.all(Array.from({ length: payerCount }, (_, i) => register('user', `payer${i}`)));
  await runner.catchUp();
  const payers: Array<{ token: string; wallet: Wallet }> = [];
  for (let i = 0; i < payerEmails.length; i += 8) {
    payers.push(
      ...(await Promise.all(
        payerEmails.slice(i, i + 8).map(async (email) => {
          const token = await login(email);
          const wallet = await fundedWallet(base, services);
          await linkWallet(base, token, wallet);
          return { token, wallet };
        }),
      )),
    );
  }
  return { slug, spread, hot, race, buyers, payers, tenantHeader };
};

export const runReservations = async (o: ReservationBenchOptions): Promise<{ rows: SummaryRow[]; details: Record<string, unknown> }> => {
  await freshDatabase(o.url);
  const services = await createServices(loadConfig({ ...process.env, DATABASE_URL: o.url, LOG_LEVEL: 'silent' }), { migrate: false });
  const app = await startServer('app', { BENCH_SERVER_DATABASE_URL: o.url });
  try {
    const p = await prepare(services, app.port, o.concurrency);
    const headers = (token: string) => ({ ...p.tenantHeader, authorization: `Bearer ${token}` });
    const reserve = (pools: string[]) => (agent: http.Agent, i: number) =>
      post(agent, app.port, `/api/pools/${pools[i % pools.length]}/reservations`, { ...headers(p.buyers[i % p.buyers.length]!), 'idempotency-key': randomUUID() }, { lines: [{ unitId: 'u', quantity: 1 }] });
    // Warm-up (JIT, sockets, pools, the state cache): not recorded.
    await closedLoop(16, 1, reserve(p.spread), 201);
    const spread = await closedLoop(o.concurrency, o.seconds, reserve(p.spread), 201);
    const hot = await closedLoop(o.concurrency, o.seconds, reserve([p.hot]), 201);
    const get = await closedLoop(o.concurrency, o.seconds, (agent, i) => post(agent, app.port, `/api/pools/${p.spread[i % 100]}`, p.tenantHeader, undefined), 200);

    // Raw append baseline: one event per new stream through the same event store, same concurrency.
    let appended = 0;
    const appendSamples: number[] = [];
    const appendStart = nowMs();
    const appendDeadline = appendStart + o.seconds * 1000;
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (nowMs() < appendDeadline) {
          const at = nowMs();
          await services.store.append(`bench-${randomUUID()}`, [{ id: randomUUID(), type: 'BenchEvent', schemaVersion: 1, data: { n: appended }, metadata: { ...meta(), tenantId: null } }], { expectedRevision: 'no_stream' });
          appendSamples.push(nowMs() - at);
          appended++;
        }
      }),
    );
    const appendRps = appended / ((nowMs() - appendStart) / 1000);
    const appendLatency = latency(appendSamples);

    // Reserve + sign + pay on the sandbox ledger, one flow per payer at a time.
    const flowSamples: number[] = [];
    const flowDeadline = nowMs() + o.seconds * 1000 * 2;
    let flows = 0;
    const flowStart = nowMs();
    await Promise.all(
      p.payers.map(async (payer) => {
        const agent = new http.Agent({ keepAlive: true });
        while (nowMs() < flowDeadline) {
          const at = nowMs();
          const pool = p.spread[flows % 100]!;
          const r = await post(agent, app.port, `/api/pools/${pool}/reservations`, { ...headers(payer.token), 'idempotency-key': randomUUID() }, { lines: [{ unitId: 'u', quantity: 1 }] });
          const id = (JSON.parse(r.text) as { data: { id: string } }).data.id;
          const t = JSON.parse((await post(agent, app.port, `/api/pools/${pool}/terms`, headers(payer.token), undefined)).text) as { data: { version: string; hash: string } };
          const signed = JSON.parse((await post(agent, app.port, `/api/pools/${pool}/reservations/${id}/sign`, headers(payer.token), { acceptTerms: true, termsVersion: t.data.version, termsHash: t.data.hash })).text) as {
            data: { payment: { xdr: string } };
          };
          const paid = await post(agent, app.port, `/api/pools/${pool}/reservations/${id}/pay`, headers(payer.token), { signedXdr: signXdr(payer.wallet, signed.data.payment.xdr).toXDR() });
          if (!paid.text.includes('"paid":true')) throw new Error(`pay failed: ${paid.text.slice(0, 300)}`);
          flowSamples.push(nowMs() - at);
          flows++;
        }
        agent.destroy();
      }),
    );
    const flowRps = flows / ((nowMs() - flowStart) / 1000);
    const flowLatency = latency(flowSamples);

    // The flash sale: RACE_BUYERS requests at once (64 buyers, one unit each) for RACE_STOCK units; every one gets
    // its answer (201 or 409 insufficient_stock), and how long the last one waited is the figure.
    const raceAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });
    const raceSamples: number[] = [];
    const raceStatus: Record<string, number> = {};
    const raceStart = nowMs();
    await Promise.all(
      Array.from({ length: RACE_BUYERS }, async (_, i) => {
        const at = nowMs();
        const r = await post(raceAgent, app.port, `/api/pools/${p.race}/reservations`, { ...headers(p.buyers[i % p.buyers.length]!), 'idempotency-key': randomUUID() }, { lines: [{ unitId: 'u', quantity: 1 }] });
        raceSamples.push(nowMs() - at);
        raceStatus[String(r.status)] = (raceStatus[String(r.status)] ?? 0) + 1;
      }),
    );
    const raceSeconds = (nowMs() - raceStart) / 1000;
    raceAgent.destroy();
    const raceLatency = latency(raceSamples);

    // 0 oversold: fold the pools' streams as the decider does.
    const takenOf = async (poolId: string) => {
      const folded = foldDomainPool((await services.store.readStream(`pool-${poolId}`)).map((r) => parseEvent(r) as unknown as PoolEvent));
      return folded.status === 'none' ? 0 : totalOf(unitCounts(folded.holdings, new Date(0).toISOString()).get('u'));
    };
    const taken = await takenOf(p.hot);
    const oversold = Math.max(0, taken - HOT_STOCK);
    const raceTaken = await takenOf(p.race);
    const raceOversold = Math.max(0, raceTaken - RACE_STOCK);

    console.log('\n## 6. Reservations over HTTP (server in a child process; sandbox ledger in it)');
    const line = (name: string, r: Run) => [name, String(r.sent), fmtRate(r.rps, ''), fmtMs(r.latency.p50), fmtMs(r.latency.p99), fmtMs(r.latency.max), String(r.refused), JSON.stringify(r.errors)];
    console.log(
      table(
        ['run', 'sent', 'ok/s', 'p50', 'p99', 'max', '409', 'errors'],
        [
          line(`reserve, 100 pools, ${o.concurrency} concurrent`, spread),
          line(`reserve, one hot pool, ${o.concurrency} concurrent`, hot),
          line(`baseline GET /api/pools/{id}, ${o.concurrency} concurrent`, get),
          [`baseline raw append (one event, new stream), ${o.concurrency} concurrent`, String(appended), fmtRate(appendRps, ''), fmtMs(appendLatency.p50), fmtMs(appendLatency.p99), fmtMs(appendLatency.max), '', ''],
          [`reserve + sign + pay on the sandbox ledger, ${p.payers.length} buyers in a closed loop`, String(flows), fmtRate(flowRps, ''), fmtMs(flowLatency.p50), fmtMs(flowLatency.p99), fmtMs(flowLatency.max), '', ''],
        ],
      ),
    );
    console.log(`Hot pool: ${taken} units held or paid of ${HOT_STOCK}; oversold ${oversold}.`);
    console.log(
      `Flash sale: ${RACE_BUYERS} reservations at once for ${RACE_STOCK} units: ${JSON.stringify(raceStatus)} in ${raceSeconds.toFixed(2)} s; p50 ${fmtMs(raceLatency.p50)}, p99 ${fmtMs(raceLatency.p99)}, max ${fmtMs(raceLatency.max)}; ${raceTaken} units held, oversold ${raceOversold}.`,
    );
    const row = (metric: string, measured: string, baseline: string, target = '', pass: boolean | null = null): SummaryRow => ({ part: 'http', metric, measured, baseline, target, pass, raw: {} });
    const baseline = `GET ${fmtRate(get.rps, '/s')} (p99 ${fmtMs(get.latency.p99)}); append ${fmtRate(appendRps, '/s')} (p99 ${fmtMs(appendLatency.p99)})`;
    return {
      rows: [
        row('reserve across 100 pools', `${fmtRate(spread.rps, '/s')} (p99 ${fmtMs(spread.latency.p99)})`, baseline, `≥ ${TARGET_SPREAD_RPS}/s, p99 < ${TARGET_P99_MS} ms`, spread.rps >= TARGET_SPREAD_RPS && spread.latency.p99 < TARGET_P99_MS),
        row('reserve on one hot pool', `${fmtRate(hot.rps, '/s')} (p99 ${fmtMs(hot.latency.p99)})`, baseline, `≥ ${TARGET_HOT_RPS}/s, p99 < ${TARGET_HOT_P99_MS} ms`, hot.rps >= TARGET_HOT_RPS && hot.latency.p99 < TARGET_HOT_P99_MS),
        row('reserve + sign + pay (sandbox ledger)', `${fmtRate(flowRps, ' flows/s')} (p99 ${fmtMs(flowLatency.p99)})`, baseline, `≥ ${TARGET_FLOWS} flows/s`, flowRps >= TARGET_FLOWS),
        row('oversold units on the hot pool', String(oversold), '', '0', oversold === 0),
        row(
          `flash sale: ${RACE_BUYERS} buyers at once for ${RACE_STOCK} units`,
          `${raceStatus['201'] ?? 0} × 201, ${raceStatus['409'] ?? 0} × 409 in ${raceSeconds.toFixed(2)} s (p99 ${fmtMs(raceLatency.p99)}); oversold ${raceOversold}`,
          baseline,
          `${RACE_STOCK} × 201, oversold 0`,
          raceOversold === 0 && raceStatus['201'] === RACE_STOCK && raceStatus['201'] + (raceStatus['409'] ?? 0) === RACE_BUYERS,
        ),
      ],
      details: { spread, hot, get, append: { rps: appendRps, latency: appendLatency }, flow: { rps: flowRps, latency: flowLatency, flows }, hotTaken: taken, race: { status: raceStatus, seconds: raceSeconds, latency: raceLatency, taken: raceTaken, oversold: raceOversold } },
    };
  } finally {
    await stopServer(app.child);
    await services.close();
  }
};
