/**
 * Operator CLI: `pnpm cli <noun> <verb> …`, the commands that need the services. Writes go through the same deciders
 * and event store as the API, then the projections are caught up in this process so the records are readable at once.
 * The entry point is ./cli/main.ts: it answers the help and `ledger info` without loading this module.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { changeTenantSettings, createTenant, onboardMerchant, reconcileAll, registerUser, setTenantFeeSchedule } from '@cagnotte/command-api';
import { AppError } from '@cagnotte/domain';
import { AccountType, FeeSchedule, Role, TenantSettings } from '@cagnotte/event-schemas';
import { PROJECTION_NAMES, ProjectionFaultedError, createProjectorRunner } from '@cagnotte/projectors';
import {
  LedgerRejectedError,
  LedgerUnavailableError,
  EscrowLedger,
  createEventAnchor,
  createSandboxHorizonRouter,
  createServices,
  serveApp,
  formatPosition,
  loadConfigOrExit,
  type AnchorReceipt,
  type Config,
  type Services,
} from '@cagnotte/infra';
import { AccountReadModel, TenantReadModel } from '@cagnotte/read-models';
import { auditCommands } from './audit-cli';
import { apiKeyCommands } from './api-keys-cli';
import { eventsCommands } from './events-cli';
import { relaisHostCommands } from './relais-hosts-cli';
import { directoryCommands } from './directory-cli';
import { sandboxWalletCommands } from './sandbox-wallet-cli';
import { sandboxClockCommands } from './sandbox-clock-cli';
import { unknownCommandLine } from './cli/help';
import { progress } from './cli/progress';
import { embeddedPostgresPlace, runningEmbeddedPostgresUrl } from './embedded-postgres';

class UsageError extends Error {}

const operator = () => ({ kind: 'operator' as const, id: process.env.USER ?? 'cli' });
const meta = () => ({ actor: operator(), correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });
const print = (v: unknown) => console.log(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x), 2));

const runner = (s: Services) => createProjectorRunner(s);

/**
 * In sandbox mode the ledger client talks to the sandbox Horizon over HTTP, as it would to testnet: the CLI serves
 * it on a loopback port of its own for the time of the command.
 */
const serveSandboxHere = async (s: Services): Promise<() => Promise<void>> => {
  if (!s.sandboxLedger || s.self.url) return async () => {};
  const express = (await import('express')).default;
  const app = express();
  app.use('/sandbox/horizon', createSandboxHorizonRouter(s.sandboxLedger));
  const server = await serveApp(app, 0, '127.0.0.1');
  const address = server.address();
  s.self.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return () => new Promise<void>((r) => server.close(() => r()));
};

/**
 * How many events the feed holds, for a progress total: counted on the PostgreSQL store; unknown (null) on
 * EventStoreDB, whose positions are byte offsets (the progress then shows counts and rate, no ETA).
 */
const feedSize = async (s: Services): Promise<number | null> => {
  if (s.store.name !== 'postgres') return null;
  const row = (await s.knex('es_events').count<{ n: string }[]>({ n: '*' }))[0];
  return Number(row?.n ?? 0);
};

const showReceipt = (r: AnchorReceipt) => ({ ...r, from: formatPosition(r.from), to: formatPosition(r.to) });

const projectionArg = (verb: string, args: string[]): string => {
  const name = args[0];
  if (!name) throw new UsageError(`projections ${verb} needs a name: ${PROJECTION_NAMES.join(', ')}`);
  if (!PROJECTION_NAMES.includes(name)) throw new UsageError(`unknown projection ${name}`);
  return name;
};

const onOff = (v: string | undefined, def: boolean) => {
  if (v === undefined) return def;
  if (v === 'on' || v === 'true') return true;
  if (v === 'off' || v === 'false') return false;
  throw new UsageError(`--white-label takes on or off, not ${v}`);
};

/** The outbox holds live reset links: outside sandbox an operator has no business reading it. */
const sandboxOnly = (s: Services, what: string) => {
  if (s.config.APP_ENV === 'production') throw new UsageError(`${what} is available in sandbox only: in production mail goes out through SMTP_URL`);
};

const setBlocked = async (s: Services, args: string[], blocked: boolean) => {
  const { values } = parseArgs({ args, options: { tenant: { type: 'string' }, email: { type: 'string' } } });
  if (!values.tenant || !values.email) throw new UsageError(`user ${blocked ? 'block' : 'unblock'} needs --tenant and --email`);
  const tenant = await new TenantReadModel(s.knex).bySlug(values.tenant.toLowerCase());
  if (!tenant) throw new UsageError(`no tenant ${values.tenant}`);
  const cred = await s.credentials.byEmail(tenant.id, values.email);
  if (!cred) throw new UsageError(`no user ${values.email} in ${tenant.slug}`);
  await s.credentials.setBlocked(cred.user_id, blocked);
  const revoked = blocked ? await s.sessions.revokeAllForUser(cred.user_id) : 0;
  print({ userId: cred.user_id, email: cred.email, tenant: tenant.slug, blocked, sessionsRevoked: revoked });
};

const commands: Record<string, (s: Services, args: string[]) => Promise<void>> = {
  ...auditCommands({ usage: (m) => new UsageError(m), print, meta, catchUp: (s, until) => runner(s).catchUp(until) }),
  ...apiKeyCommands({ usage: (m) => new UsageError(m), print, meta, catchUp: (s, until) => runner(s).catchUp(until) }),
  ...eventsCommands({ usage: (m) => new UsageError(m) }),
  ...relaisHostCommands({ usage: (m) => new UsageError(m), print, meta, catchUp: (s, until) => runner(s).catchUp(until) }),
  // A list reads what is projected: a faulted projection (`projections status` names it) does not stop it.
  ...sandboxClockCommands({ usage: (m) => new UsageError(m), print }),
  ...directoryCommands({
    usage: (m) => new UsageError(m),
    print,
    catchUp: (s) =>
      runner(s)
        .catchUp()
        .catch((e: unknown) => {
          if (!(e instanceof ProjectionFaultedError)) throw e;
        }),
  }),
  ...sandboxWalletCommands({ usage: (m) => new UsageError(m), print, serveSandbox: serveSandboxHere, catchUp: (s, until) => runner(s).catchUp(until) }),
  'tenant create': async (s, args) => {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { name: { type: 'string' }, 'white-label': { type: 'string' }, origin: { type: 'string', multiple: true } },
    });
    const slug = positionals[0]?.toLowerCase();
    if (!slug || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)) throw new UsageError('tenant create needs a slug: lowercase letters, digits and dashes');
    const origins = (values.origin ?? []).map((o) => {
      try {
        return new URL(o).origin;
      } catch {
        throw new UsageError(`--origin ${o} is not a URL`);
      }
    });
    const { tenant, position } = await createTenant(s, { slug, name: values.name, whiteLabel: onOff(values['white-label'], false), approvedOrigins: origins }, meta());
    await runner(s).catchUp(position);
    print({ ...tenant, position: formatPosition(position) });
  },
  'user create': async (s, args) => {
    const { values } = parseArgs({
      args,
      options: {
        tenant: { type: 'string' },
        email: { type: 'string' },
        password: { type: 'string' },
        phone: { type: 'string' },
        name: { type: 'string' },
        role: { type: 'string', default: 'user' },
        'account-type': { type: 'string', default: 'CONSUMER' },
      },
    });
    if (!values.tenant || !values.email || !values.password) throw new UsageError('user create needs --tenant, --email and --password');
    const tenant = await new TenantReadModel(s.knex).bySlug(values.tenant.toLowerCase());
    if (!tenant) throw new UsageError(`no tenant ${values.tenant}: create it first with \`pnpm cli tenant create ${values.tenant}\``);
    const role = Role.safeParse(values.role);
    const accountType = AccountType.safeParse(values['account-type']);
    if (!role.success) throw new UsageError('--role takes user or organiser');
    if (!accountType.success) throw new UsageError('--account-type takes CONSUMER or BUSINESS');
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email)) throw new UsageError('--email is not an email address');
    if (values.phone !== undefined && (values.phone.length < 5 || values.phone.length > 20)) throw new UsageError('--phone takes 5 to 20 characters');
    if (values.password.length < 8) throw new UsageError('--password needs at least 8 characters');
    const { account, position } = await registerUser(
      s,
      {
        tenantId: tenant.id,
        email: values.email,
        password: values.password,
        phone: values.phone ?? null,
        displayName: values.name ?? values.email.split('@')[0]!,
        role: role.data,
        accountType: accountType.data,
        signupSource: 'operator-cli',
      },
      meta(),
    );
    await runner(s).catchUp(position);
    print({ id: account.userId, ...account, tenant: tenant.slug, position: formatPosition(position) });
  },
  'user block': async (s, args) => setBlocked(s, args, true),
  'user unblock': async (s, args) => setBlocked(s, args, false),
  'mail list': async (s, args) => {
    sandboxOnly(s, 'mail list');
    const { values } = parseArgs({ args, options: { to: { type: 'string' }, limit: { type: 'string', default: '20' } } });
    const limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new UsageError('--limit takes 1 to 500');
    const mails = await s.mail.list({ to: values.to, limit });
    print(mails.map(({ text: _text, ...m }) => m));
  },
  'mail show': async (s, args) => {
    sandboxOnly(s, 'mail show');
    const id = args[0];
    if (!id) throw new UsageError('mail show needs a message id (see mail list)');
    const mail = await s.mail.get(id);
    if (!mail) throw new UsageError(`no message ${id}`);
    print(mail);
  },
  'merchant create': async (s, args) => {
    const { values } = parseArgs({
      args,
      options: {
        tenant: { type: 'string' },
        slug: { type: 'string' },
        name: { type: 'string' },
        'owner-email': { type: 'string' },
        lat: { type: 'string' },
        lng: { type: 'string' },
        'postal-code': { type: 'string' },
        city: { type: 'string' },
        category: { type: 'string', multiple: true },
        description: { type: 'string' },
        website: { type: 'string' },
        inactive: { type: 'boolean', default: false },
      },
    });
    if (!values.tenant || !values.slug || !values.name) throw new UsageError('merchant create needs --tenant, --slug and --name');
    const tenant = await new TenantReadModel(s.knex).bySlug(values.tenant.toLowerCase());
    if (!tenant) throw new UsageError(`no tenant ${values.tenant}`);
    const slug = values.slug.toLowerCase();
    if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)) throw new UsageError('--slug takes lowercase letters, digits and dashes');
    if ((values.lat === undefined) !== (values.lng === undefined)) throw new UsageError('--lat and --lng go together');
    const lat = values.lat === undefined ? null : Number(values.lat);
    const lng = values.lng === undefined ? null : Number(values.lng);
    if (lat !== null && (!Number.isFinite(lat) || lat < -90 || lat > 90)) throw new UsageError('--lat is a latitude from -90 to 90');
    if (lng !== null && (!Number.isFinite(lng) || lng < -180 || lng > 180)) throw new UsageError('--lng is a longitude from -180 to 180');
    if (values.website !== undefined && !URL.canParse(values.website)) throw new UsageError('--website is not a URL');
    const { merchant, position } = await onboardMerchant(
      { ...s, accounts: new AccountReadModel(s.knex) },
      {
        tenantId: tenant.id,
        slug,
        ownerEmail: values['owner-email'],
        activate: !values.inactive,
        profile: {
          name: values.name,
          description: values.description ?? '',
          storefrontLinks: values.website ? { website: values.website } : {},
          address: {
            ...(values['postal-code'] ? { postalCode: values['postal-code'] } : {}),
            ...(values.city ? { city: values.city } : {}),
            country: 'FR',
          },
          location: lat !== null && lng !== null ? { lat, lng } : null,
          categories: values.category ?? [],
        },
      },
      meta(),
    );
    await runner(s).catchUp(position);
    print({ ...merchant, tenant: tenant.slug, position: formatPosition(position) });
  },
  'projections status': async (s) => {
    const status = await runner(s).status();
    print(status.map((p) => ({ ...p, position: p.position && formatPosition(p.position), head: p.head && formatPosition(p.head) })));
    if (status.some((p) => p.state === 'faulted')) process.exitCode = 1;
  },
  'projections catch-up': async (s) => {
    const r = runner(s);
    // The lag is a count of feed positions on PostgreSQL (an estimate: a rolled-back append leaves a gap).
    const lag = s.store.name === 'postgres' ? (await r.status()).filter((p) => p.state !== 'faulted').reduce((n, p) => n + p.lagEvents, 0) : null;
    const bar = progress('catching up', 'events', lag);
    let done = 0;
    try {
      await r.catchUp(undefined, undefined, ({ read }) => bar.update((done += read)));
      bar.stop();
      print({ caughtUp: true });
    } catch (e) {
      bar.stop();
      if (!(e instanceof ProjectionFaultedError)) throw e;
      print({ caughtUp: false, faulted: e.faulted });
      process.exitCode = 1;
    }
  },
  'projections retry': async (s, args) => {
    const name = projectionArg('retry', args);
    const { wasFaulted } = await runner(s).retry(name);
    print({ projection: name, wasFaulted, state: 'running' });
  },
  'projections rebuild': async (s, args) => {
    const name = projectionArg('rebuild', args);
    const bar = progress(`rebuilding ${name}`, 'events', await feedSize(s));
    try {
      const result = await runner(s).rebuild(name, (read) => bar.update(read));
      bar.stop();
      print({ projection: name, events: result.events, position: result.position && formatPosition(result.position), state: 'running' });
    } catch (e) {
      bar.stop();
      if (!(e instanceof ProjectionFaultedError)) throw e;
      print({ projection: name, rebuilt: false, faulted: e.faulted });
      process.exitCode = 1;
    }
  },
  'events verify': async (s, args) => {
    const all = args.includes('--all');
    const streams = args.filter((a) => a !== '--all');
    if (!all && streams.length === 0) throw new UsageError('events verify needs stream ids or --all');
    const anchor = createEventAnchor(s);
    if (!anchor) {
      // No anchoring here (EventStoreDB, or a real ledger without ANCHOR_SIGNING_SECRET): the hash chains only.
      const ids = all ? ((await s.knex('es_streams').where('revision', '>=', 0).orderBy('stream_id').pluck('stream_id')) as string[]) : streams;
      const results = [];
      const bar = progress('verifying', 'streams', ids.length);
      try {
        for (const id of ids) {
          results.push(await s.store.verifyStream(id));
          bar.update(results.length);
        }
      } finally {
        bar.stop();
      }
      const broken = results.filter((r) => !r.ok);
      print({ streams: results.length, broken: broken.length, anchors: null, results: all ? broken : results });
      if (broken.length > 0) process.exitCode = 1;
      return;
    }
    const bar = progress('verifying', 'streams', all ? null : streams.length);
    let report;
    try {
      report = await anchor.verify(all ? 'all' : streams, (done, total) => bar.update(done, total));
    } finally {
      bar.stop();
    }
    print({ ...report, results: all ? report.results.filter((r) => !r.ok) : report.results });
    if (!report.ok) process.exitCode = 1;
  },
  'tenant settings': async (s, args) => {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        'reservation-ttl': { type: 'string' },
        'listing-fee-listed': { type: 'string' },
        'listing-fee-featured': { type: 'string' },
        'delist-refund-window-hours': { type: 'string' },
        'platform-fee-percent': { type: 'string' },
        'inspection-days': { type: 'string' },
        'dispute-response-days': { type: 'string' },
      },
    });
    const slug = positionals[0];
    if (!slug) throw new UsageError('tenant settings needs a slug');
    const int = (name: string, v: string | undefined) => {
      if (v === undefined) return undefined;
      if (!/^\d{1,9}$/.test(v)) throw new UsageError(`--${name} takes a whole number`);
      return Number(v);
    };
    const amount = (name: string, v: string | undefined) => {
      if (v !== undefined && !/^(0|[1-9]\d{0,14})(\.\d{1,7})?$/.test(v)) throw new UsageError(`--${name} takes a decimal amount (at most 7 decimals)`);
      return v;
    };
    const listed = amount('listing-fee-listed', values['listing-fee-listed']);
    const featured = amount('listing-fee-featured', values['listing-fee-featured']);
    if ((listed === undefined) !== (featured === undefined)) throw new UsageError('give --listing-fee-listed and --listing-fee-featured together');
    const parsed = TenantSettings.safeParse({
      ...(values['reservation-ttl'] !== undefined ? { reservationTtlSeconds: int('reservation-ttl', values['reservation-ttl']) } : {}),
      ...(listed !== undefined ? { listingFees: { LISTED: listed, FEATURED: featured } } : {}),
      ...(values['delist-refund-window-hours'] !== undefined ? { delistRefundWindowHours: int('delist-refund-window-hours', values['delist-refund-window-hours']) } : {}),
      ...(values['platform-fee-percent'] !== undefined ? { platformFeePercent: values['platform-fee-percent'] } : {}),
      ...(values['inspection-days'] !== undefined ? { inspectionDays: int('inspection-days', values['inspection-days']) } : {}),
      ...(values['dispute-response-days'] !== undefined ? { disputeResponseDays: int('dispute-response-days', values['dispute-response-days']) } : {}),
    });
    if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const { settings } = await changeTenantSettings(s, slug, parsed.data, meta());
    print({ slug, settings });
  },
  'tenant fees': async (s, args) => {
    const flags = ['payment-percent', 'payment-fixed', 'payment-min', 'payment-cap', 'deposit-percent', 'deposit-fixed', 'deposit-min', 'deposit-cap', 'listing-listed', 'listing-featured', 'activation', 'vat-default'] as const;
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { ...Object.fromEntries(flags.map((f) => [f, { type: 'string' as const }])), vat: { type: 'string', multiple: true } },
    });
    const slug = positionals[0];
    if (!slug) throw new UsageError('tenant fees needs a slug');
    const v = values as Record<string, string | undefined> & { vat?: string[] };
    const vat: Array<[string, string | null]> = (v.vat ?? []).map((entry) => {
      const m = /^([A-Z]{2})=(.+)$/.exec(entry);
      if (!m) throw new UsageError(`--vat takes <COUNTRY>=<percent> (ISO 3166-1 alpha-2, e.g. FR=20) or <COUNTRY>=none, not ${entry}`);
      return [m[1]!, m[2] === 'none' ? null : m[2]!];
    });
    const cap = (x: string | undefined, current: string | null) => (x === undefined ? current : x === 'none' ? null : x);
    const change = (c: FeeSchedule): FeeSchedule => {
      const byCountry: Record<string, string> = { ...c.vat.byCountry };
      for (const [country, rate] of vat) if (rate === null) delete byCountry[country]; else byCountry[country] = rate;
      const next = {
        payment: { percent: v['payment-percent'] ?? c.payment.percent, fixed: v['payment-fixed'] ?? c.payment.fixed, min: v['payment-min'] ?? c.payment.min, cap: cap(v['payment-cap'], c.payment.cap) },
        escrowDeposit: { percent: v['deposit-percent'] ?? c.escrowDeposit.percent, fixed: v['deposit-fixed'] ?? c.escrowDeposit.fixed, min: v['deposit-min'] ?? c.escrowDeposit.min, cap: cap(v['deposit-cap'], c.escrowDeposit.cap) },
        listing: { LISTED: v['listing-listed'] ?? c.listing.LISTED, FEATURED: v['listing-featured'] ?? c.listing.FEATURED },
        organiserActivation: v.activation ?? c.organiserActivation,
        vat: { default: v['vat-default'] ?? c.vat.default, byCountry },
      };
      const parsed = FeeSchedule.safeParse(next);
      if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      return parsed.data;
    };
    const { schedule, isDefault, position } = await setTenantFeeSchedule(s, s.config, slug, change, meta());
    print({ slug, schedule, default: isDefault, recorded: position !== null });
  },
  'escrow reconcile': async (s, args) => {
    const { values } = parseArgs({ args, options: { pool: { type: 'string' } } });
    if (values.pool !== undefined && !/^[0-9a-f-]{36}$/i.test(values.pool)) throw new UsageError('--pool takes a pool id');
    const stopSandbox = await serveSandboxHere(s);
    try {
      const bar = progress('reconciling', 'pools', null);
      let report;
      try {
        report = await reconcileAll({ ...s, escrow: new EscrowLedger(s.ledger) }, { poolId: values.pool, onProgress: (done, total) => bar.update(done, total) });
      } finally {
        bar.stop();
      }
      print(report);
      if (!report.ok) process.exitCode = 1;
    } finally {
      await stopSandbox();
    }
  },
  'events anchor': async (s) => {
    const anchor = createEventAnchor(s);
    if (!anchor) throw new UsageError('anchoring needs the PostgreSQL event store and, with LEDGER_MODE=horizon, ANCHOR_SIGNING_SECRET');
    const bar = progress('anchoring', 'events', null);
    try {
      const result = await anchor.anchorNow((events) => bar.update(events));
      bar.stop();
      print({ status: result.status, account: anchor.account, anchors: result.anchors.map(showReceipt) });
    } catch (e) {
      bar.stop();
      if (!(e instanceof LedgerRejectedError || e instanceof LedgerUnavailableError)) throw e;
      console.error(JSON.stringify({ success: false, error: e.message, code: e instanceof LedgerRejectedError ? 'ledger_rejected' : 'ledger_unavailable' }));
      process.exitCode = 1;
    }
  },
  'events anchors': async (s, args) => {
    const { values } = parseArgs({ args, options: { limit: { type: 'string', default: '20' }, leaves: { type: 'string' } } });
    const anchor = createEventAnchor(s);
    if (!anchor) throw new UsageError('anchoring needs the PostgreSQL event store and, with LEDGER_MODE=horizon, ANCHOR_SIGNING_SECRET');
    if (values.leaves !== undefined) {
      if (!/^\d{1,18}$/.test(values.leaves)) throw new UsageError('--leaves takes an anchor id');
      const receipt = await anchor.receipt(BigInt(values.leaves));
      if (!receipt) throw new UsageError(`no anchor ${values.leaves}`);
      print({ ...showReceipt(receipt), leaves: await anchor.leaves(receipt.anchorId) });
      return;
    }
    const limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new UsageError('--limit takes 1 to 10000');
    print({ account: anchor.account, anchors: (await anchor.receipts({ limit })).map(showReceipt) });
  },
};

/** Runs one command (argv without the node and script paths), with the services open for its time. */
/**
 * The database of a sandbox `pnpm start` that runs an embedded PostgreSQL (DATABASE_URL unset, nothing on the default
 * address): the CLI finds it by its data directory, so a newcomer's commands reach the service's data.
 */
const withEmbeddedPostgres = async (config: Config): Promise<Config> => {
  const place = await embeddedPostgresPlace(config);
  const url = place && (await runningEmbeddedPostgresUrl(place.dataDir));
  return url ? { ...config, DATABASE_URL: url } : config;
};

export const runCommand = async (argv: string[]) => {
  const key = argv.slice(0, 2).join(' ');
  const command = commands[key];
  if (!command) {
    console.error(unknownCommandLine(argv));
    process.exitCode = 2;
    return;
  }
  const usageError = (message: string) => console.error(`error: ${message}\n(\`pnpm cli ${key} --help\` shows its usage)`);
  const config = await withEmbeddedPostgres(loadConfigOrExit());
  const services = await createServices({ ...config, LOG_LEVEL: process.env.LOG_LEVEL ? config.LOG_LEVEL : 'warn' });
  try {
    await command(services, argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) {
      usageError(e.message);
      process.exitCode = 2;
    } else if (e instanceof ProjectionFaultedError) {
      // A write went through but a read model will not show it until the operator retries or rebuilds.
      console.error(JSON.stringify({ success: false, error: e.message, code: e.code, faulted: e.faulted }, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)));
      process.exitCode = 1;
    } else if (e instanceof AppError) {
      console.error(JSON.stringify({ success: false, error: e.message, code: e.code }));
      process.exitCode = 1;
    } else if (e instanceof TypeError && (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      usageError(e.message);
      process.exitCode = 2;
    } else throw e;
  } finally {
    await services.close();
  }
};


/** Every command's key (the first two words), for the spec that checks the usage text names each one. */
export const COMMAND_KEYS = Object.keys(commands);
