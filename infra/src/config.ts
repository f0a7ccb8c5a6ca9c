import { z } from 'zod';
import { defaultDatabaseAddress, formatAddress } from './preflight';

export const SANDBOX_JWT_SECRET = 'cagnotte-sandbox-only-secret-change-me-in-production';
/** The sandbox's fixed key for webhook secrets at rest (sha256 of a phrase): public, so refused in production. */
export const SANDBOX_WEBHOOK_ENCRYPTION_KEY = '9IN29S02BAYEdme8lVIotEvHr5YQktqLsU2kXFVdxx4=';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const int = (def: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(def);

const ConfigSchema = z
  .object({
    APP_ENV: z.enum(['sandbox', 'production']).default('sandbox'),
    PORT: int(3000, 0, 65535),
    HOST: z.string().min(1).default('0.0.0.0'),
    /** Unset: postgres://postgres@127.0.0.1:5432/cagnotte (PGHOST / PGPORT change the address); `pnpm start` runs an embedded PostgreSQL when nothing answers there. */
    DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/cagnotte'),
    REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
    /** In sandbox, how long a start waits for Redis to answer (with a countdown) before it gives up; production does not wait. */
    REDIS_WAIT_SECONDS: int(60, 0, 3600),
    /** Where `pnpm start` keeps its embedded PostgreSQL's data (relative to the project), when it runs one. */
    EMBEDDED_POSTGRES_DIR: z.string().min(1).default('.data/postgres'),
    /** On SIGTERM / SIGINT, how long in-flight requests, workers and projectors have to finish before the process exits 1. */
    SHUTDOWN_TIMEOUT_MS: int(10_000, 100, 600_000),
    /** Prepended to every Redis key: several deployments (or test runs) can share one Redis without colliding. */
    REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9:_.-]{0,64}$/).default(''),
    DB_POOL_SIZE: int(20, 2, 500),
    EVENTSTORE_URL: z.string().min(1).optional(),
    OPENSEARCH_URL: z.string().url().optional(),
    OPENSEARCH_INDEX_PREFIX: z.string().regex(/^[a-z0-9_-]{0,40}$/).default('cagnotte-'),
    EMBEDDINGS_URL: z.string().url().optional(),
    EMBEDDINGS_MODEL: z.string().min(1).max(200).optional(),
    RATE_LIMIT_CATALOGUE_PER_MINUTE: int(120, 1, 1_000_000),
    RATE_LIMIT_SEARCH_PER_MINUTE: int(300, 1, 1_000_000),
    /**
     * Inbound carrier webhooks (POST /api/relais/webhooks/{network}): each network's HMAC-SHA256 secret. A network
     * without one answers 404. In sandbox deployments the sandbox carrier's defaults to one derived from JWT_SECRET.
     */
    RELAIS_WEBHOOK_SECRET_MONDIAL_RELAY: z.string().min(32, 'a relais webhook secret is at least 32 characters').optional(),
    RELAIS_WEBHOOK_SECRET_COLISSIMO: z.string().min(32, 'a relais webhook secret is at least 32 characters').optional(),
    RELAIS_WEBHOOK_SECRET_CHRONOPOST: z.string().min(32, 'a relais webhook secret is at least 32 characters').optional(),
    RELAIS_WEBHOOK_SECRET_INPOST: z.string().min(32, 'a relais webhook secret is at least 32 characters').optional(),
    RELAIS_WEBHOOK_SECRET_SANDBOX: z.string().min(32, 'a relais webhook secret is at least 32 characters').optional(),
    /** Carrier webhook requests one IP may send per minute (carriers batch; generous). */
    RATE_LIMIT_RELAIS_WEBHOOKS_PER_MINUTE: int(600, 1, 1_000_000),
    JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
    JWT_KEY_ID: z.string().min(1).max(64).default('k1'),
    /** Key rotation: JSON `{"<old kid>": "<old secret>"}`; tokens signed with them stay valid until they expire. */
    JWT_PREVIOUS_KEYS: z
      .string()
      .transform((raw, ctx) => {
        try {
          const parsed = z.record(z.string().min(1).max(64), z.string().min(32)).parse(JSON.parse(raw));
          return parsed;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'JWT_PREVIOUS_KEYS must be JSON {"kid": "secret of at least 32 characters"}' });
          return z.NEVER;
        }
      })
      .optional(),
    JWT_ISSUER: z.string().min(1).default('cagnotte'),
    JWT_AUDIENCE: z.string().min(1).default('cagnotte-api'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    BODY_LIMIT_BYTES: int(100_000, 1_000, 10_000_000),
    DEFAULT_TENANT: z.string().min(1).default('default'),
    TRUST_PROXY: bool.default(false),
    READ_YOUR_WRITES_TIMEOUT_MS: int(5_000, 0, 60_000),
    /** Between two `: heartbeat` comments of GET /v1/events/stream (docs/events-feed.md). */
    FEED_HEARTBEAT_MS: int(15_000, 100, 300_000),
    /** Long-polls and streams of the event feed one tenant may hold open in one process; one more is a 429. */
    FEED_MAX_WAITERS_PER_TENANT: int(200, 1, 100_000),
    RATE_LIMIT_LOGIN_PER_MINUTE: int(10, 1, 100_000),
    RATE_LIMIT_WINDOW_SECONDS: int(60, 1, 3600),
    PROJECTORS: z.enum(['embedded', 'off']).default('embedded'),
    /** Failed attempts on one event before a projection stops as faulted (docs/projections.md). */
    PROJECTION_MAX_ATTEMPTS: int(5, 1, 1000),
    /** First retry delay of a failing projection; it doubles per attempt, up to 30 s. */
    PROJECTION_RETRY_BASE_MS: int(200, 1, 60_000),
    /** GET /readyz: a projection further behind the feed's head than this many events is not ready (0: lag not checked). */
    READYZ_MAX_PROJECTION_LAG: int(10_000, 0, 100_000_000),
    /** GET /readyz: how long each dependency (PostgreSQL, Redis, the event store) has to answer. */
    READYZ_TIMEOUT_MS: int(2_000, 50, 60_000),
    RATE_LIMIT_REGISTER_PER_MINUTE: int(10, 1, 100_000),
    RATE_LIMIT_PASSWORD_RESET_PER_MINUTE: int(5, 1, 100_000),
    RATE_LIMIT_ORGANISER_PER_MINUTE: int(20, 1, 100_000),
    /** Where password-reset links point (the partner's page); the token is appended as `?token=`. */
    PASSWORD_RESET_URL: z.string().url().default('http://localhost:3000/reset-password'),
    SMTP_URL: z.string().url().optional(),
    MAIL_FROM: z.string().min(3).default('Cagnotte <no-reply@cagnotte.local>'),
    /** Background jobs (docs/jobs.md): attempts per job before it stays as failed. */
    JOBS_ATTEMPTS: int(8, 1, 100),
    /** First retry delay of a failing job; it doubles per attempt. */
    JOBS_RETRY_BASE_MS: int(30_000, 1, 3_600_000),
    /** How long a finished job's key is remembered: enqueuing the same key again within it is a no-op. */
    JOBS_KEEP_COMPLETED_SECONDS: int(7 * 86_400, 60, 365 * 86_400),
    /** How long a job that failed all its attempts stays visible (failed count in /metrics). */
    JOBS_KEEP_FAILED_SECONDS: int(30 * 86_400, 60, 365 * 86_400),
    /** Mails one process sends at the same time. */
    MAIL_WORKER_CONCURRENCY: int(4, 1, 100),
    /** `sandbox`: the service runs its own Stellar network at /sandbox/horizon. `horizon`: a real Horizon (testnet or public). */
    LEDGER_MODE: z.enum(['sandbox', 'horizon']).default('sandbox'),
    HORIZON_URL: z.string().url().optional(),
    STELLAR_NETWORK_PASSPHRASE: z.string().min(1).default('Cagnotte Sandbox Network ; November 2026'),
    STELLAR_ASSET_CODE: z.string().regex(/^[A-Za-z0-9]{1,12}$/).default('EURC'),
    STELLAR_ASSET_ISSUER: z.string().regex(/^G[A-Z2-7]{55}$/).optional(),
    /** The account that receives platform fees (organiser activation). */
    PLATFORM_ACCOUNT: z.string().regex(/^G[A-Z2-7]{55}$/).optional(),
    /** The platform account's secret (S…): it funds and cosigns escrow accounts and pays listing refunds. In sandbox mode it is derived from the passphrase when unset. */
    PLATFORM_SECRET: z.string().regex(/^S[A-Z2-7]{55}$/).optional(),
    /** Signs SEP-10 style link challenges. In sandbox mode it is derived from the network passphrase when unset. */
    LEDGER_SIGNING_SECRET: z.string().regex(/^S[A-Z2-7]{55}$/).optional(),
    /** The SEP-10 home domain (and web-auth domain) that link challenges name. */
    LEDGER_HOME_DOMAIN: z.string().regex(/^[a-z0-9.-]{1,200}$/).default('cagnotte.local'),
    /** Signs the anchor transactions that commit the event log to the ledger. In sandbox mode it is derived from the passphrase when unset. */
    ANCHOR_SIGNING_SECRET: z.string().regex(/^S[A-Z2-7]{55}$/).optional(),
    /** How long a transaction of the service's own accounts waits for its account's turn before it answers 503 (docs/ledger-sequence.md). */
    LEDGER_TURN_TIMEOUT_MS: int(30_000, 100, 600_000),
    /** Defaults of the tenant settings an operator can change per tenant (`pnpm cli tenant-settings`). */
    /** How long a PENDING reservation holds its units before it expires unpaid. */
    RESERVATION_TTL_SECONDS: int(900, 60, 7 * 86_400),
    /** The paid listing's fees in the stablecoin ("0": free). */
    LISTING_FEE_LISTED: z.string().regex(/^(0|[1-9]\d{0,14})(\.\d{1,7})?$/).default('5'),
    LISTING_FEE_FEATURED: z.string().regex(/^(0|[1-9]\d{0,14})(\.\d{1,7})?$/).default('20'),
    /** A delist within this many hours of the listing, before any paid reservation, refunds the fee. */
    DELIST_REFUND_WINDOW_HOURS: int(72, 0, 24 * 365),
    /** Days after a pool's deadline from which each buyer can reclaim an unreleased deposit alone (docs/escrow.md). */
    ESCROW_RECLAIM_AFTER_DAYS: int(30, 1, 3650),
    /** The platform's fee on what a successful pool releases, in percent (two decimals): the tenant setting's default. */
    PLATFORM_FEE_PERCENT: z.string().regex(/^(100(\.0{1,2})?|[1-9]?\d(\.\d{1,2})?)$/).default('2'),
    /** Where the platform is taxed, and its VAT id (none: its fees are not subject to VAT, category O): VAT on fees (docs/fees.md). */
    PLATFORM_COUNTRY: z.string().regex(/^[A-Z]{2}$/).default('FR'),
    PLATFORM_VAT_ID: z.string().regex(/^[A-Z]{2}[0-9A-Z+*]{2,13}$/, 'a VAT id with its country prefix (FR83404833048)').optional(),
    /** Days a buyer has from delivery to confirm receipt or dispute (the tenant setting's default; a pool's terms may say otherwise). */
    INSPECTION_DAYS: int(3, 1, 60),
    /** Days an organiser has to answer a dispute, and a contested dispute to be withdrawn (the tenant setting's default). */
    DISPUTE_RESPONSE_DAYS: int(7, 1, 60),
    /** How long a prepared settlement's release stays valid before its keyless recovery may run instead (docs/escrow.md). */
    ESCROW_RELEASE_WINDOW_HOURS: int(168, 2, 24 * 365),
    /** How often the service anchors new events on the ledger (docs/event-store.md); 0 turns periodic anchoring off. */
    ANCHOR_INTERVAL_SECONDS: int(300, 0, 86_400),
    /** The platform as it appears on the fee invoices it issues (docs/invoicing.md): legal name, SIRET, VAT id, address. */
    PLATFORM_LEGAL_NAME: z.string().min(1).max(200).default('Cagnotte SAS'),
    PLATFORM_SIRET: z.string().regex(/^\d{14}$/, 'must be 14 digits').default('12345678200010'),
    PLATFORM_ADDRESS_LINE1: z.string().max(300).default('1 rue de la Paix'),
    PLATFORM_ADDRESS_POSTCODE: z.string().max(16).default('75002'),
    PLATFORM_ADDRESS_CITY: z.string().max(120).default('Paris'),
    /** How long a webhook delivery waits for the receiver's answer (docs/webhooks.md). */
    WEBHOOK_TIMEOUT_MS: int(15_000, 50, 120_000),
    /** The retry schedule of webhook deliveries, ms from the previous attempt, comma-separated (first 0: at once). Default: Standard Webhooks' 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
    WEBHOOK_RETRY_SCHEDULE_MS: z
      .string()
      .regex(/^\d{1,9}(,\d{1,9}){0,49}$/, 'WEBHOOK_RETRY_SCHEDULE_MS is a comma-separated list of milliseconds (0,5000,300000)')
      .transform((v) => v.split(',').map(Number))
      .optional(),
    /** Webhook deliveries one process sends at the same time. */
    WEBHOOK_DELIVERY_CONCURRENCY: int(128, 1, 1000),
    /** Webhook endpoints one tenant may have (every owner together). */
    WEBHOOK_MAX_ENDPOINTS_PER_TENANT: int(20, 1, 1000),
    /** Encrypts webhook signing secrets and keys at rest (AES-256-GCM): base64 of 32 random bytes (`openssl rand -base64 32`). */
    WEBHOOK_ENCRYPTION_KEY: z
      .string()
      .refine((v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32, 'WEBHOOK_ENCRYPTION_KEY must be the base64 of 32 bytes (openssl rand -base64 32)')
      .optional(),
    /** Pick-up points (docs/relais.md): the sandbox carrier's fixture points; unset: on outside production, off in production. */
    RELAIS_SANDBOX_CARRIER: bool.optional(),
    /** How long the directory waits for one network before it answers without it (`sources[].status: timeout`). */
    RELAIS_NETWORK_TIMEOUT_MS: int(1500, 50, 60_000),
    /** How long a network's answer for one (country, postal code) stays in the Redis cache. */
    RELAIS_CACHE_TTL_SECONDS: int(900, 0, 86_400),
    /** Latency the sandbox carrier adds to every call (to feel a real network). */
    RELAIS_SANDBOX_LATENCY_MS: int(0, 0, 60_000),
    RATE_LIMIT_RELAIS_PER_MINUTE: int(120, 1, 1_000_000),
    /** Mondial Relay (SOAP WSI4_PointRelais_Recherche): enabled when both are set. */
    MONDIAL_RELAY_ENSEIGNE: z.string().min(2).max(10).optional(),
    MONDIAL_RELAY_PRIVATE_KEY: z.string().min(1).max(100).optional(),
    MONDIAL_RELAY_API_URL: z.string().url().default('https://api.mondialrelay.com/Web_Services.asmx'),
    /** Colissimo (PointRetraitServiceWS 2.0): enabled when both are set. */
    COLISSIMO_ACCOUNT: z.string().min(1).max(20).optional(),
    COLISSIMO_PASSWORD: z.string().min(1).max(200).optional(),
    COLISSIMO_API_URL: z.string().url().default('https://ws.colissimo.fr/pointretrait-ws-cxf/PointRetraitServiceWS/2.0'),
    /** Chronopost (PointRelaisServiceWS): enabled when both are set. */
    CHRONOPOST_ACCOUNT: z.string().min(1).max(20).optional(),
    CHRONOPOST_PASSWORD: z.string().min(1).max(200).optional(),
    CHRONOPOST_API_URL: z.string().url().default('https://ws.chronopost.fr/recherchebt-ws-cxf/PointRelaisServiceWS'),
    /** InPost (ShipX points API): enabled when the token is set. */
    INPOST_TOKEN: z.string().min(1).max(2000).optional(),
    INPOST_API_URL: z.string().url().default('https://api-shipx-pl.easypack24.net'),
    /** How often the pools' directory pick-up points are checked again (docs/relais.md): the unusable ones are reported. */
    RELAIS_POINT_CHECK_MINUTES: int(30, 1, 24 * 60),
  })
  .superRefine((c, ctx) => {
    if (c.APP_ENV === 'production' && !c.JWT_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['JWT_SECRET'], message: 'JWT_SECRET is required when APP_ENV=production (at least 32 random characters)' });
    }
    if (c.APP_ENV === 'production' && c.JWT_SECRET === SANDBOX_JWT_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['JWT_SECRET'], message: 'the sandbox JWT_SECRET must not be used in production' });
    }
    if (c.APP_ENV === 'production' && !c.WEBHOOK_ENCRYPTION_KEY) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_ENCRYPTION_KEY'], message: 'WEBHOOK_ENCRYPTION_KEY is required when APP_ENV=production (openssl rand -base64 32)' });
    }
    if (c.APP_ENV === 'production' && c.WEBHOOK_ENCRYPTION_KEY === SANDBOX_WEBHOOK_ENCRYPTION_KEY) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_ENCRYPTION_KEY'], message: 'the sandbox WEBHOOK_ENCRYPTION_KEY must not be used in production' });
    }
    if (c.LEDGER_MODE === 'horizon') {
      for (const key of ['HORIZON_URL', 'STELLAR_ASSET_ISSUER', 'PLATFORM_ACCOUNT', 'PLATFORM_SECRET', 'LEDGER_SIGNING_SECRET'] as const) {
        if (!c[key]) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is required when LEDGER_MODE=horizon` });
      }
      if (c.ANCHOR_INTERVAL_SECONDS > 0 && !c.ANCHOR_SIGNING_SECRET) {
        ctx.addIssue({
          code: 'custom',
          path: ['ANCHOR_SIGNING_SECRET'],
          message: 'ANCHOR_SIGNING_SECRET is required when LEDGER_MODE=horizon and anchoring is on (ANCHOR_INTERVAL_SECONDS > 0; 0 turns it off)',
        });
      }
    }
    if (c.APP_ENV === 'production' && c.LEDGER_MODE === 'sandbox') {
      ctx.addIssue({ code: 'custom', path: ['LEDGER_MODE'], message: 'the sandbox ledger must not be used in production: set LEDGER_MODE=horizon' });
    }
  });

export type Config = Omit<z.infer<typeof ConfigSchema>, 'JWT_SECRET' | 'WEBHOOK_ENCRYPTION_KEY'> & { JWT_SECRET: string; WEBHOOK_ENCRYPTION_KEY: string };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment once, at start. Empty strings count as unset. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  cleaned.DATABASE_URL ??= `postgres://postgres@${formatAddress(defaultDatabaseAddress(env))}/cagnotte`;
  const parsed = ConfigSchema.safeParse(cleaned);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`));
  return {
    ...parsed.data,
    JWT_SECRET: parsed.data.JWT_SECRET ?? SANDBOX_JWT_SECRET,
    WEBHOOK_ENCRYPTION_KEY: parsed.data.WEBHOOK_ENCRYPTION_KEY ?? SANDBOX_WEBHOOK_ENCRYPTION_KEY,
  };
};

/** Loads the config or exits with a readable list of what is wrong (never a stack trace). */
export const loadConfigOrExit = (): Config => {
  try {
    return loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
};
