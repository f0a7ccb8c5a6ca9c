/**
 * `pnpm bench [-- --only appends|projector|http|search|reservations|settlement|publish|webhooks|soak|relais]`: the event store, the pools projector, the public
 * pool read and catalogue search, reservations, the escrow's settlement on the sandbox ledger, concurrent publishes (the platform's transactions in turn),
 * events out (webhook deliveries, commit-to-delivery delay, feed long-polls), each beside a baseline measured in the same run, on a database of its own (BENCH_DATABASE_URL,
 * default cagnotte_bench, dropped and recreated for every part). Prints the machine, the figures and a
 * summary, and writes scripts/bench/results/latest.json. A benchmark, not a test: it never fails the build.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { dropDatabase } from '@cagnotte/infra';
import { benchDatabaseUrl, describeMachine, fmtMs, table, verdict, type SummaryRow } from './lib';

process.env.LOG_LEVEL = 'silent';

const PARTS = ['appends', 'projector', 'http', 'search', 'reservations', 'settlement', 'publish', 'webhooks', 'soak', 'relais'] as const;
/** The soak (projectors' exactly-once stress, minutes) runs only when named. */
const DEFAULT_PARTS = PARTS.filter((p) => p !== 'soak');
type Part = (typeof PARTS)[number];

const USAGE = `usage: pnpm bench [-- --only appends|projector|http|search|reservations|settlement|publish|webhooks|soak|relais[,…]] [--seconds N] [--events N] [--rate N] [--open-seconds N] [--closed-seconds N] [--concurrency N] [--listings N] [--queries N] [--deposits N] [--publishes N] [--endpoints N] [--idle-events N] [--consumers N] [--append-rate N] [--relais-latency N] [--keep-db]
  webhooks: --events public events (default 5000) × --endpoints (3) delivered to a local receiver; --idle-events (200) one at a time for the commit-to-delivery delay; --consumers (100) long-polls of GET /v1/events while --append-rate (20/s) events are appended for --seconds (10)`;

/** `--name value` and `--name=value`; a bare `--` (as pnpm may pass it) is ignored. */
const parseArgs = (argv: string[]) => {
  const values: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') continue;
    if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unexpected argument ${a}\n${USAGE}`);
    if (m[1] === 'keep-db') values['keep-db'] = 'true';
    else values[m[1]!] = m[2] ?? argv[++i] ?? '';
  }
  const num = (name: string, def: number, min: number, max: number) => {
    const v = values[name] === undefined ? def : Number(values[name]);
    if (!Number.isFinite(v) || v < min || v > max) throw new Error(`--${name} must be a number from ${min} to ${max}\n${USAGE}`);
    return v;
  };
  const only = (values.only ?? DEFAULT_PARTS.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
  for (const p of only) if (!PARTS.includes(p as Part)) throw new Error(`--only takes ${PARTS.join('|')}, not "${p}"\n${USAGE}`);
  return {
    parts: PARTS.filter((p) => only.includes(p)),
    seconds: num('seconds', 2, 0.5, 3600),
    /** --seconds for the soak; 60 when not given. */
    soakSeconds: num('seconds', 60, 1, 3600),
    events: num('events', 100_000, 100, 1_000_000),
    rate: num('rate', 500, 1, 5_000),
    openSeconds: num('open-seconds', 10, 1, 60),
    closedSeconds: num('closed-seconds', 5, 1, 60),
    concurrency: num('concurrency', 32, 1, 256),
    listings: num('listings', 100_000, 1_000, 1_000_000),
    queries: num('queries', 150, 10, 10_000),
    deposits: num('deposits', 200, 1, 5_000),
    publishes: num('publishes', 50, 1, 1_000),
    /** The webhooks part's own defaults where it shares a flag with another part. */
    webhookEvents: num('events', 5_000, 100, 1_000_000),
    webhookSeconds: num('seconds', 10, 1, 3600),
    endpoints: num('endpoints', 3, 1, 50),
    idleEvents: num('idle-events', 200, 10, 10_000),
    consumers: num('consumers', 100, 1, 190),
    appendRate: num('append-rate', 20, 1, 1_000),
    /** The sandbox carrier's latency in the relais part (RELAIS_SANDBOX_LATENCY_MS). */
    relaisLatency: num('relais-latency', 120, 0, 5_000),
    keepDb: values['keep-db'] === 'true',
  };
};

const main = async () => {
  const args = parseArgs(process.argv.slice(2));
  const url = benchDatabaseUrl();
  const started = Date.now();
  const admin = new URL(url);
  admin.pathname = '/postgres'; // the bench database may not exist yet
  const machine = await describeMachine(admin.toString());
  console.log('# Cagnotte benchmarks');
  console.log(`CPU: ${machine.cpuModel} × ${machine.cpuCount}; memory ${machine.totalMemoryGiB} GiB; ${machine.platform}`);
  console.log(`Node ${machine.node}; PostgreSQL ${machine.postgres} (${Object.entries(machine.postgresSettings).map(([k, v]) => `${k}=${v}`).join(', ')})`);
  const j = machine.timerJitterMs;
  console.log(`Timer jitter of an idle Node process (1 ms timer, 1 s): p50 ${fmtMs(j.p50)}, p99 ${fmtMs(j.p99)}, max ${fmtMs(j.max)}`);
  console.log(`Database ${new URL(url).pathname.slice(1)} on ${new URL(url).host}, recreated for each part; PostgreSQL and the load generator share this machine.`);

  const rows: Array<Omit<SummaryRow, 'part'> & { part: SummaryRow['part'] | 'search' | 'settlement' | 'publish' | 'relais' }> = [];
  const details: Record<string, unknown> = {};
  const timings: Record<string, number> = {};
  for (const part of args.parts) {
    const t = Date.now();
    if (part === 'appends') {
      const { runAppends } = await import('./appends');
      const r = await runAppends({ url, seconds: args.seconds });
      rows.push(...r.rows);
      details.appends = r.details;
    } else if (part === 'projector') {
      const { runProjector } = await import('./projector');
      const r = await runProjector({ url, events: args.events });
      rows.push(...r.rows);
      details.projector = r.details;
    } else if (part === 'soak') {
      const { runSoak } = await import('./soak');
      const r = await runSoak({ url, seconds: args.soakSeconds });
      rows.push(...r.rows);
      details.soak = r.details;
    } else if (part === 'reservations') {
      const { runReservations } = await import('./reservations');
      const r = await runReservations({ url, seconds: Math.max(args.seconds, 5), concurrency: args.concurrency });
      rows.push(...r.rows);
      details.reservations = r.details;
    } else if (part === 'settlement') {
      const { runSettlement } = await import('./settlement');
      const r = await runSettlement({ url, deposits: args.deposits });
      rows.push(...r.rows);
      details.settlement = r.details;
    } else if (part === 'publish') {
      const { runPublish } = await import('./publish');
      const r = await runPublish({ url, publishes: args.publishes });
      rows.push(...r.rows);
      details.publish = r.details;
    } else if (part === 'webhooks') {
      const { runWebhooks } = await import('./webhooks');
      const r = await runWebhooks({
        url,
        events: args.webhookEvents,
        endpoints: args.endpoints,
        idleEvents: args.idleEvents,
        consumers: args.consumers,
        rate: args.appendRate,
        seconds: args.webhookSeconds,
        concurrency: args.concurrency,
      });
      rows.push(...r.rows);
      details.webhooks = r.details;
    } else if (part === 'relais') {
      const { runRelais } = await import('./relais');
      const r = await runRelais({ url, requests: Math.round(args.queries), latencyMs: args.relaisLatency });
      rows.push(...r.rows);
      details.relais = r.details;
    } else if (part === 'search') {
      const { runSearch } = await import('./search');
      const r = await runSearch({ url, listings: args.listings, queries: args.queries });
      rows.push(...r.rows);
      details.search = r.details;
    } else {
      const { runHttp } = await import('./http');
      const r = await runHttp({ url, rate: args.rate, openSeconds: args.openSeconds, closedSeconds: args.closedSeconds, concurrency: args.concurrency, pools: 5 });
      rows.push(...r.rows);
      details.http = r.details;
    }
    timings[part] = (Date.now() - t) / 1000;
  }
  if (!args.keepDb) await dropDatabase(url);

  const totalSeconds = (Date.now() - started) / 1000;
  console.log('\n## Summary');
  console.log(table(['metric', 'measured', 'baseline', 'target', 'PASS/FAIL'], rows.map((r) => [r.metric, r.measured, r.baseline, r.target, verdict(r.pass)])));
  console.log(`\nTotal ${totalSeconds.toFixed(0)} s (${Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(0)} s`).join(', ')}).`);

  const outDir = path.join(__dirname, 'results');
  mkdirSync(outDir, { recursive: true });
  const out = path.join(outDir, 'latest.json');
  const replacer = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
  writeFileSync(out, JSON.stringify({ startedAt: new Date(started).toISOString(), totalSeconds, timings, args, machine, summary: rows, details }, replacer, 2) + '\n');
  console.log(`Results written to ${path.relative(process.cwd(), out)}`);
};

main().then(
  () => process.exit(0),
  (e: unknown) => {
    // Argument mistakes show the usage line only; anything else its stack.
    console.error(e instanceof Error ? (e.message.includes('usage:') ? e.message : (e.stack ?? e.message)) : e);
    process.exit(1);
  },
);
