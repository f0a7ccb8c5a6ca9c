import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Server } from 'node:http';
import type { Express } from 'express';
import { changeTenantSettings, createTenant, makeCommandRoutes, onboardMerchant, registerUser, verifyTenant } from '@cagnotte/command-api';
import type { AccountType, RelaisDirectoryPort, Role } from '@cagnotte/event-schemas';
import { createApiServer, createKnex, createServices, dropDatabase, ensureDatabase, loadConfig, migrate, serveApp, type Config, type Logger, type Services } from '@cagnotte/infra';
import { onTestTeardown, testDatabaseUrl } from '@cagnotte/infra/src/testing/resources';
import type { ProjectorRunner } from '@cagnotte/projectors';
import { createEmbedded } from '../src/api';
import { AccountReadModel, TenantReadModel } from '@cagnotte/read-models';
import { fundedWallet, linkWallet, type Wallet } from './wallet';

/** A running API on a random port, against the test database and Redis, the way a partner front-end sees it. */
export interface TestApi {
  url: string;
  services: Services;
  runner: ProjectorRunner;
  app: Express;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  /** A tenant. Its listing fees are 0 (listing is free: POST …/list lists at once) unless `listingFees` says otherwise. */
  tenant(options?: { whiteLabel?: boolean; origins?: string[]; slug?: string; listingFees?: { LISTED: string; FEATURED: string } }): Promise<{ id: string; slug: string }>;
  /** Lists a published pool of `user` at `tier` through POST /api/pools/{id}/list (free on the harness's tenants). */
  list(user: TestUser, poolId: string, tier?: 'LISTED' | 'FEATURED'): Promise<void>;
  user(tenantSlug: string, options?: UserOptions): Promise<TestUser>;
  merchant(tenantSlug: string, options: MerchantOptions): Promise<{ id: string; slug: string }>;
  /**
   * An API key acting as `user` (an organiser), issued through POST /v1/api-keys with the user's session. A live key
   * first verifies the tenant (as `pnpm cli tenant verify` does).
   */
  apiKey(user: TestUser, options?: { mode?: 'test' | 'live'; scopes?: string[]; name?: string }): Promise<{ id: string; secret: string }>;
  stop(): Promise<void>;
}

export interface CallOptions {
  token?: string;
  tenant?: string;
  body?: unknown;
  /** Sent as is (for malformed JSON); sets content-type application/json unless `contentType` says otherwise. */
  rawBody?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /**
   * Every `POST /v1/…` requires an `Idempotency-Key`: `call` sends a fresh one unless `headers` has one. False sends
   * none (to see the 400).
   */
  idempotencyKey?: false;
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface UserOptions {
  role?: Role;
  accountType?: AccountType;
  email?: string;
  phone?: string | null;
  password?: string;
  name?: string;
  /**
   * A funded wallet (holding the stablecoin) linked to the account. Organisers get one unless `false`: publishing
   * opens the pool's escrow with their ledger account as cosigner, and every real organiser paid their activation
   * fee from one.
   */
  wallet?: boolean;
}

export interface MerchantOptions {
  slug?: string;
  name: string;
  ownerEmail?: string;
  active?: boolean;
  description?: string;
  categories?: string[];
  city?: string;
  postalCode?: string;
  location?: { lat: number; lng: number } | null;
  website?: string;
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
  token: string;
  tenant: string;
  /** The linked wallet, when the user has one (see UserOptions.wallet). */
  wallet?: Wallet;
}

/** Polls `probe` until it answers something truthy, or fails after `timeoutMs` (generous: the machine may be loaded). */
export const eventually = async <T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 10; ; wait = Math.min(wait * 2, 250)) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, wait));
  }
};

export const uniqueSlug = (prefix = 't') => `${prefix}-${randomUUID().slice(0, 8)}`;

const testConfig = (overrides: Partial<Config>): Config => ({
  ...loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' }),
  PORT: 0,
  HOST: '127.0.0.1',
  READ_YOUR_WRITES_TIMEOUT_MS: 5000,
  ...overrides,
});

/** Listens the way boot does (serveApp: parser errors answered in the envelope), on a random port. */
export const listen = async (app: Express): Promise<{ server: Server; url: string }> => {
  const server = await serveApp(app, 0, '127.0.0.1');
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { server, url: `http://127.0.0.1:${port}` };
};

/**
 * A second command-api process as a split deployment runs one: its own services (pools, per-stream queues, ledger
 * client) on the test run's database, serving the command routes on a random port until the run ends.
 */
export const startSecondCommandApi = async (overrides: Partial<Config> = {}): Promise<{ url: string; services: Services }> => {
  const services = await createServices({ ...loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), PORT: 0, HOST: '127.0.0.1', ...overrides }, { migrate: false });
  const app = createApiServer({ services, tenants: new TenantReadModel(services.knex), routes: makeCommandRoutes({ services }), projections: ['pools'], info: { title: 'second', version: '1', description: 'second command-api' } });
  const { server, url } = await listen(app);
  onTestTeardown(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    server.closeAllConnections?.();
    await services.close();
  });
  return { url, services };
};

export const call = async <T = any>(base: string, method: string, path: string, o: CallOptions = {}): Promise<ApiResponse<T>> => {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.tenant) headers['x-service-tenant'] = o.tenant;
  const named = Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key');
  if (method.toUpperCase() === 'POST' && path.startsWith('/v1/') && !named && o.idempotencyKey !== false) headers['idempotency-key'] = randomUUID();
  let body: string | undefined;
  if (o.rawBody !== undefined) body = o.rawBody;
  else if (o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined) headers['content-type'] = o.contentType ?? 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
};

/**
 * A database of the spec's own (the run's name plus `_<suffix>`), migrated, dropped when the run ends. For a spec
 * whose service must be the only one applying its projections: on the run's database, every spec's service that is
 * still up takes its turn at each projection, and one under another Redis key prefix (or another clock) would queue
 * the spec's timers where its workers never look.
 */
export const ownDatabase = async (suffix: string): Promise<string> => {
  const url = new URL(testDatabaseUrl());
  url.pathname = `${url.pathname}_${suffix}`;
  const own = url.toString();
  await dropDatabase(own);
  await ensureDatabase(own);
  const knex = createKnex(own, 2);
  await migrate(knex, own);
  await knex.destroy();
  // Registered before the spec's startApi: teardowns run last first, so the service stops before its database goes.
  onTestTeardown(() => dropDatabase(own));
  return own;
};

/** Starts the embedded API (command + query + projectors) once per spec file; stopped by the runner at the end. */
export const startApi = async (overrides: Partial<Config> = {}, options: { clock?: () => Date; relaisDirectory?: RelaisDirectoryPort; logger?: Logger } = {}): Promise<TestApi> => {
  const services = await createServices(testConfig(overrides), { migrate: false, ...(options.logger ? { logger: options.logger } : {}) });
  const { app, runner } = await createEmbedded(services, options);
  const { server, url } = await listen(app);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const closed = new Promise<void>((r) => server.close(() => r()));
    // Open event streams and long-polls end first: the server waits for every open connection (as boot does).
    await services.feedWaker.close();
    server.closeAllConnections?.();
    await closed;
    await runner.stop();
    await services.close();
  };
  onTestTeardown(stop);
  const meta = () => ({ actor: { kind: 'operator' as const, id: 'e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });
  const api: TestApi = {
    url,
    services,
    runner,
    app,
    call: (method, path, o) => call(url, method, path, o),
    async tenant(o = {}) {
      const slug = o.slug ?? uniqueSlug();
      const { tenant, position } = await createTenant(services, { slug, whiteLabel: o.whiteLabel ?? true, approvedOrigins: o.origins ?? [] }, meta());
      await changeTenantSettings(services, slug, { listingFees: o.listingFees ?? { LISTED: '0', FEATURED: '0' } }, meta());
      await runner.catchUp(position);
      return { id: tenant.tenantId, slug };
    },
    async user(tenantSlug, o = {}) {
      const tenant = await new TenantReadModel(services.knex).bySlug(tenantSlug);
      if (!tenant) throw new Error(`no tenant ${tenantSlug}`);
      const email = o.email ?? `${randomUUID().slice(0, 12)}@example.test`;
      const password = o.password ?? 'correct horse battery';
      const { userId, position } = await registerUser(
        services,
        {
          tenantId: tenant.id,
          email,
          password,
          phone: o.phone ?? null,
          displayName: o.name ?? email.split('@')[0]!,
          role: o.role ?? 'user',
          accountType: o.accountType ?? 'CONSUMER',
          signupSource: 'e2e',
        },
        meta(),
      );
      await runner.catchUp(position);
      const login = await call<{ data: { token: string } }>(url, 'POST', '/api/auth/login/password', { tenant: tenantSlug, body: { email, password } });
      if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
      const token = login.body.data.token;
      if (!(o.wallet ?? o.role === 'organiser')) return { id: userId, email, password, token, tenant: tenantSlug };
      const wallet = await fundedWallet(url, services);
      await linkWallet(url, token, wallet);
      return { id: userId, email, password, token, tenant: tenantSlug, wallet };
    },
    async merchant(tenantSlug, o) {
      const tenant = await new TenantReadModel(services.knex).bySlug(tenantSlug);
      if (!tenant) throw new Error(`no tenant ${tenantSlug}`);
      const slug = o.slug ?? uniqueSlug('m');
      const { merchant, position } = await onboardMerchant(
        { ...services, accounts: new AccountReadModel(services.knex) },
        {
          tenantId: tenant.id,
          slug,
          ownerEmail: o.ownerEmail,
          activate: o.active ?? true,
          profile: {
            name: o.name,
            description: o.description ?? '',
            storefrontLinks: o.website ? { website: o.website } : {},
            address: { ...(o.city ? { city: o.city } : {}), ...(o.postalCode ? { postalCode: o.postalCode } : {}), country: 'FR' },
            location: o.location ?? null,
            categories: o.categories ?? [],
          },
        },
        meta(),
      );
      await runner.catchUp(position);
      return { id: (merchant as { id: string }).id, slug };
    },
    async apiKey(user, o = {}) {
      if (o.mode === 'live') await verifyTenant(services, { slug: user.tenant, note: 'e2e' }, meta());
      const res = await call<{ data: { id: string; secret: string } }>(url, 'POST', '/v1/api-keys', {
        token: user.token,
        tenant: user.tenant,
        body: { name: o.name ?? 'e2e', mode: o.mode ?? 'test', ...(o.scopes ? { scopes: o.scopes } : {}) },
      });
      if (res.status !== 201) throw new Error(`API key refused: ${res.status} ${res.text}`);
      return { id: res.body.data.id, secret: res.body.data.secret };
    },
    async list(user, poolId, tier = 'LISTED') {
      const res = await call<{ data: { listed: boolean } }>(url, 'POST', `/api/pools/${poolId}/list`, { token: user.token, tenant: user.tenant, body: { tier } });
      if (res.status !== 200 || !res.body.data.listed) throw new Error(`listing failed: ${res.status} ${res.text}`);
    },
    stop,
  };
  return api;
};

/** The escrow account of the `groupsPool` fixture (public: escrow material is an account id, never a key). */
export const ESCROW_ACCOUNT_ID = `G${'ESCROW'.repeat(10).slice(0, 55)}`;

/** A minimal valid GROUPS pool body. */
export const groupsPool = (overrides: Record<string, unknown> = {}) => ({
  type: 'GROUPS',
  title: 'Paniers de légumes bio',
  description: 'Livraison le samedi',
  config: {
    units: [{ id: 'panier-m', label: 'Panier moyen', price: '12.50' }],
    relais: [
      { id: 'r1', name: 'Épicerie du coin', city: 'Lyon', postalCode: '69001', lat: 45.76, lng: 4.83 },
      { id: 'r2', name: 'Boulangerie', city: 'Lyon' },
    ],
    sellerPhone: '+33600000000',
    notes: 'owner only note',
    links: ['https://example.test/farm'],
    escrow: { accountId: ESCROW_ACCOUNT_ID },
  },
  ...overrides,
});

/** A minimal valid FUNDING pool body. */
export const fundingPool = (overrides: Record<string, unknown> = {}) => ({
  type: 'FUNDING',
  title: 'Nouveau four pour la boulangerie',
  targetAmount: '2500.00',
  ...overrides,
});

const ROOT = resolve(__dirname, '../..');

/** The operator CLI as an operator runs it: its own process (`node scripts/cli.mjs …`, what `pnpm cli` runs), the test run's environment. */
export const runCli = (...args: string[]) => runCliWith({}, ...args);

/** As runCli, with more environment (WALLET_SECRET, another LEDGER_MODE…). */
export const runCliWith = async (env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: string; err: string }> => {
  try {
    // As `pnpm cli` runs it: the compiled CLI (built on the first call when missing or stale).
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['scripts/cli.mjs', ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      maxBuffer: 256 * 1024 * 1024,
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
};
