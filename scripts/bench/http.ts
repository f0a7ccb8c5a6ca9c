import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createTenant, registerUser } from '@cagnotte/command-api';
import { createServices, loadConfig } from '@cagnotte/infra';
import { createProjectorRunner } from '@cagnotte/projectors';
import { fmtMs, fmtRate, freshDatabase, machineCpu, table, type SummaryRow } from './lib';
import { closedLoop, openLoop, type LoadResult, type Target } from './loadgen';
import { fundedWallet, linkWallet } from '../e2e/wallet';

const TARGET_P99_MS = 10;
const SERVER_SCRIPT = path.join(__dirname, 'server.ts');
const children = new Set<ChildProcess>();
process.on('exit', () => children.forEach((c) => c.kill()));

export interface HttpOptions {
  url: string;
  rate: number;
  openSeconds: number;
  closedSeconds: number;
  concurrency: number;
  pools: number;
}

/**
 * Starts server.ts in a child process (tsx loader) and resolves with the port it listens on.
 * BENCH_CPU_PROF=1 writes a V8 CPU profile of the app server to scripts/bench/results/ when it stops.
 */
export const startServer = (mode: 'app' | 'baseline', env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> =>
  new Promise((resolve, reject) => {
    const prof = mode === 'app' && process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.join(__dirname, 'results')] : [];
    const child = fork(SERVER_SCRIPT, [mode], { execArgv: ['--import', 'tsx', ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), ...prof], env: { ...process.env, ...env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    children.add(child);
    // Generous: on a machine other jobs load, compiling the app under tsx alone has taken over 30 s.
    const timer = setTimeout(() => reject(new Error(`${mode} server did not start within 120 s`)), 120_000);
    child.once('message', (m: { port?: number; error?: string }) => {
      clearTimeout(timer);
      if (m.port) resolve({ child, port: m.port });
      else reject(new Error(`${mode} server failed: ${m.error ?? 'unknown'}`));
    });
    child.once('exit', (code) => {
      children.delete(child);
      clearTimeout(timer);
      reject(new Error(`${mode} server exited with ${code}`));
    });
  });

export const stopServer = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.send('stop');
  const timer = setTimeout(() => child.kill(), 8_000);
  await exited;
  clearTimeout(timer);
};

export const json = async (port: number, method: string, p: string, headers: Record<string, string>, body?: unknown) => {
  const res = await fetch(`http://127.0.0.1:${port}${p}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
  return { text, body: JSON.parse(text) as { data: Record<string, unknown> } };
};

const groupsPool = (i: number) => ({
  type: 'GROUPS',
  title: `Paniers de légumes bio ${i}`,
  description: 'Livraison le samedi',
  config: {
    units: [{ id: 'panier-m', label: 'Panier moyen', price: '12.50' }],
    relais: [
      { id: 'r1', name: 'Épicerie du coin', city: 'Lyon', postalCode: '69001', lat: 45.76, lng: 4.83 },
      { id: 'r2', name: 'Boulangerie', city: 'Lyon' },
    ],
    sellerPhone: '+33600000000',
    notes: 'owner only note',
  },
});

/** A tenant, an organiser (command-api, catch-up, password login over HTTP) and published GROUPS pools. */
const prepare = async (url: string, port: number, pools: number): Promise<{ slug: string; ids: string[]; sample: string }> => {
  const services = await createServices(loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' }), { migrate: false });
  try {
    const runner = createProjectorRunner(services);
    const meta = () => ({ actor: { kind: 'operator' as const, id: 'bench' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });
    const slug = `bench-${randomUUID().slice(0, 8)}`;
    const { tenant } = await createTenant(services, { slug, whiteLabel: true, approvedOrigins: [] }, meta());
    const email = `organiser-${randomUUID().slice(0, 8)}@example.test`;
    const password = 'correct horse battery';
    await registerUser(
      services,
      { tenantId: tenant.tenantId, email, password, phone: null, displayName: 'Bench Organiser', role: 'organiser', accountType: 'CONSUMER', signupSource: 'bench' },
      meta(),
    );
    await runner.catchUp();
    const tenantHeader = { 'x-service-tenant': slug };
    const login = await json(port, 'POST', '/api/auth/login/password', tenantHeader, { email, password });
    const auth = { ...tenantHeader, authorization: `Bearer ${String(login.body.data.token)}` };
    // Publishing opens the pool's escrow with the organiser's linked ledger account as a cosigner.
    await linkWallet(`http://127.0.0.1:${port}`, String(login.body.data.token), await fundedWallet(`http://127.0.0.1:${port}`, services));
    const ids: string[] = [];
    for (let i = 0; i < pools; i++) {
      const created = await json(port, 'POST', '/api/pools', auth, groupsPool(i));
      const id = String(created.body.data.id);
      await json(port, 'POST', `/api/pools/${id}/publish`, auth);
      ids.push(id);
    }
    // Anonymous read, as a partner's public page does it: must be 200 before we measure.
    const sample = await json(port, 'GET', `/api/pools/${ids[0]}`, tenantHeader);
    return { slug, ids, sample: sample.text };
  } finally {
    await services.close();
  }
};

export interface ServerStats {
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  gc: { count: number; totalMs: number; maxMs: number };
  cpuPercent: number;
  /** The server's CPU time (user + system) since the last ask. */
  cpuMs: number;
}

/** Asks the child for its event-loop delay, GC pauses and CPU since the last ask. */
export const serverStats = (child: ChildProcess): Promise<ServerStats | null> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => done(null), 2_000);
    const onMessage = (m: { stats?: ServerStats }) => m.stats && done(m.stats);
    const done = (s: ServerStats | null) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(s);
    };
    child.on('message', onMessage);
    child.send('stats');
  });

type Measured = { result: LoadResult; server: ServerStats | null; cpu: ReturnType<ReturnType<typeof machineCpu>> };

const measure = async (t: Target, o: HttpOptions, child: ChildProcess): Promise<{ open: Measured; closed: Measured }> => {
  // Warm-up, not recorded: JIT, keep-alive sockets, database pools. A cold server falls behind at 500/s.
  await closedLoop(t, 16, 2);
  await openLoop(t, o.rate, 1);
  await serverStats(child);
  let cpu = machineCpu();
  const open = await openLoop(t, o.rate, o.openSeconds);
  const openCpu = cpu();
  const openServer = await serverStats(child);
  cpu = machineCpu();
  const closed = await closedLoop(t, o.concurrency, o.closedSeconds);
  const closedCpu = cpu();
  const closedServer = await serverStats(child);
  return { open: { result: open, server: openServer, cpu: openCpu }, closed: { result: closed, server: closedServer, cpu: closedCpu } };
};

const errorsText = (r: LoadResult) => (r.errors === 0 ? '0' : `${r.errors} (${Object.entries(r.errorKinds).map(([k, v]) => `${k}: ${v}`).join(', ')})`);

export const runHttp = async (o: HttpOptions): Promise<{ rows: SummaryRow[]; details: Record<string, unknown> }> => {
  await freshDatabase(o.url);
  const app = await startServer('app', { BENCH_SERVER_DATABASE_URL: o.url });
  let appResult: Awaited<ReturnType<typeof measure>>;
  let baseResult: Awaited<ReturnType<typeof measure>>;
  let prepared: Awaited<ReturnType<typeof prepare>>;
  try {
    prepared = await prepare(o.url, app.port, o.pools);
    const paths = prepared.ids.map((id) => `/api/pools/${id}`);
    appResult = await measure({ port: app.port, paths, headers: { 'x-service-tenant': prepared.slug } }, o, app.child);
  } finally {
    await stopServer(app.child);
  }
  // The baseline answers the very body the app served, so both send the same bytes.
  const base = await startServer('baseline', { BENCH_BASELINE_BODY: prepared.sample });
  try {
    baseResult = await measure({ port: base.port, paths: prepared.ids.map((id) => `/api/pools/${id}`), headers: { 'x-service-tenant': prepared.slug } }, o, base.child);
  } finally {
    await stopServer(base.child);
  }

  const a = appResult.open.result;
  const b = baseResult.open.result;
  const ac = appResult.closed.result;
  const bc = baseResult.closed.result;
  const label = `GET /api/pools/{id}, open loop ${o.rate} req/s × ${o.openSeconds} s`;
  console.log('\n## 3. HTTP: GET /api/pools/{id} (server in a child process, load generator in this one)');
  console.log(`Response body ${Buffer.byteLength(prepared.sample)} bytes; anonymous with X-Service-Tenant; ${o.pools} published GROUPS pools in rotation.`);
  console.log('Open-loop latency counts from the scheduled send time; "send lag" is the generator\'s own lateness against that schedule.');
  console.log('CPU: server and generator in % of one core, machine in % of all cores (PostgreSQL included).');
  console.log('Server CPU per request: the server process\'s CPU time over the requests answered, the figure least moved by other load on the machine.');
  const line = (name: string, m: Measured) => {
    const r = m.result;
    const srv = m.server;
    return [
      name,
      String(r.sent),
      fmtRate(r.achievedRps, ''),
      fmtMs(r.latency.p50),
      fmtMs(r.latency.p99),
      fmtMs(r.latency.max),
      errorsText(r),
      r.sendLag ? fmtMs(r.sendLag.p99) : '',
      `${srv ? `${srv.cpuPercent}%` : 'n/a'} / ${m.cpu.selfPercent}% / ${m.cpu.machineBusyPercent}%`,
      srv ? `${fmtMs(srv.eventLoopDelayMs.p99)} / ${fmtMs(srv.eventLoopDelayMs.max)}` : 'n/a',
      srv ? `${srv.gc.count}, max ${fmtMs(srv.gc.maxMs)}` : 'n/a',
      srv && r.ok > 0 ? fmtMs(srv.cpuMs / r.ok) : 'n/a',
    ];
  };
  console.log(
    table(
      ['run', 'sent', 'achieved req/s', 'p50', 'p99', 'max', 'errors', 'send lag p99', 'CPU server / generator / machine', 'server loop delay p99/max', 'server GCs', 'server CPU per request'],
      [
        line(`app, open loop ${o.rate}/s`, appResult.open),
        line(`baseline express, open loop ${o.rate}/s`, baseResult.open),
        line(`app, closed loop ${o.concurrency} concurrent`, appResult.closed),
        line(`baseline express, closed loop ${o.concurrency} concurrent`, baseResult.closed),
      ],
    ),
  );
  const row = (metric: string, measured: string, baseline: string, target = '', pass: boolean | null = null): SummaryRow => ({ part: 'http', metric, measured, baseline, target, pass, raw: {} });
  const rows: SummaryRow[] = [
    row(`${label}: achieved`, fmtRate(a.achievedRps, ' req/s'), fmtRate(b.achievedRps, ' req/s')),
    row(`${label}: p50`, fmtMs(a.latency.p50), fmtMs(b.latency.p50)),
    row(`${label}: p99`, fmtMs(a.latency.p99), fmtMs(b.latency.p99), `< ${TARGET_P99_MS} ms, 0 errors`, a.latency.p99 < TARGET_P99_MS && a.errors === 0),
    row(`${label}: max`, fmtMs(a.latency.max), fmtMs(b.latency.max)),
    row(`${label}: errors`, errorsText(a), errorsText(b)),
    row(
      `GET /api/pools/{id}, closed loop ${o.concurrency} concurrent × ${o.closedSeconds} s`,
      `${fmtRate(ac.achievedRps, ' req/s')} (p50 ${fmtMs(ac.latency.p50)}, p99 ${fmtMs(ac.latency.p99)})`,
      `${fmtRate(bc.achievedRps, ' req/s')} (p50 ${fmtMs(bc.latency.p50)}, p99 ${fmtMs(bc.latency.p99)})`,
    ),
    row(
      `GET /api/pools/{id}, server CPU per request (closed loop)`,
      appResult.closed.server && ac.ok > 0 ? fmtMs(appResult.closed.server.cpuMs / ac.ok) : 'n/a',
      baseResult.closed.server && bc.ok > 0 ? fmtMs(baseResult.closed.server.cpuMs / bc.ok) : 'n/a',
    ),
  ];
  return { rows, details: { responseBytes: Buffer.byteLength(prepared.sample), pools: prepared.ids.length, app: appResult, baseline: baseResult } };
};
