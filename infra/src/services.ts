import type { Knex } from 'knex';
import { UnauthorizedError, isUuid } from '@cagnotte/domain';
import type { Config } from './config';
import { createKnex, createPgPool, ensureDatabase, migrate } from './db/database';
import type { EventStore } from './event-store/port';
import { PostgresEventStore } from './event-store/postgres';
import { createLogger, type Logger } from './logger';
import { createRedis, type Redis } from './redis';
import { RateLimiter } from './http/rate-limit';
import { IdempotencyStore } from './http/idempotency';
import { KeyedQueue } from './concurrency/keyed-queue';
import type { AuthContext, Authenticator, HttpKit, TenantDirectory } from './http/route';
import { TokenService } from './auth/tokens';
import { SessionStore } from './auth/sessions';
import { CredentialStore } from './auth/credentials';
import { ApiKeyStore } from './auth/api-keys';
import { CheckpointWaiter } from './projections/checkpoints';
import { RecentWrites } from './projections/recent-writes';
import type { Embedder, SearchIndex } from './search/port';
import { createEmbedder } from './search/embeddings';
import { PostgresSearchIndex } from './search/postgres';
import { OneTimeUse } from './auth/one-time';
import { MailOutbox } from './mail/outbox';
import { BullJobQueue } from './jobs/bullmq';
import { JOB_QUEUES, type JobQueue } from './jobs/port';
import { LedgerGateway } from './ledger/gateway';
import { PostgresSourceLock, type SourceAccountLock } from './ledger/source-lock';
import { SandboxLedger, sandboxKeys } from '@cagnotte/sandbox-ledger';
import { Keypair } from '@stellar/stellar-sdk';
import pg from 'pg';
import { FeedWaker } from './webhooks/feed-waker';
import { OperationalMetrics, type LedgerCall } from './operational-metrics';
import { SandboxClock } from './sandbox-clock';

/**
 * The adapters a process opens (infra only: no read model, no business rule). Built once per process by its
 * composition root (`boot`), which hands each feature's routes, handlers and projections exactly the adapters
 * they use (command-api/src/app.ts, query-api/src/app.ts, projectors/src/index.ts): no route sees this record.
 */
export interface Services {
  config: Config;
  logger: Logger;
  knex: Knex;
  pgPool: pg.Pool;
  redis: Redis;
  store: EventStore;
  /** Commands on one stream run one at a time in this process (see command-api runCommand). */
  commandQueue: KeyedQueue;
  tokens: TokenService;
  sessions: SessionStore;
  credentials: CredentialStore;
  rateLimiter: RateLimiter;
  waiter: CheckpointWaiter;
  /** The last position each session wrote through this process: its next read here waits for it (read-your-writes). */
  recentWrites: RecentWrites;
  searchIndex: SearchIndex;
  embedder: Embedder;
  oneTime: OneTimeUse;
  mail: MailOutbox;
  /** Background jobs (bullmq on Redis): mail delivery now, the money path's deadlines later (docs/jobs.md). */
  jobs: JobQueue;
  ledger: LedgerGateway;
  /** The embedded Stellar network (LEDGER_MODE=sandbox), served by the API at /sandbox/horizon; null against a real Horizon. */
  sandboxLedger: SandboxLedger | null;
  /**
   * The service's time: every command, job and timer of the process reads it. In sandbox it is the sandbox clock
   * (system time plus the network's offset, which `pnpm cli sandbox clock advance` moves); elsewhere the system's.
   */
  clock: () => Date;
  /** The sandbox clock itself (to advance it); null in production or against a real Horizon. */
  sandboxClock: SandboxClock | null;
  /**
   * Where this process's own HTTP server answers (set by the API server from the first requests). In sandbox
   * mode the ledger client calls the sandbox Horizon there, over HTTP, exactly as it would call testnet.
   */
  self: { url: string | null };
  /** Idempotency-Key records (PostgreSQL, one round trip per look-up). */
  idempotency: IdempotencyStore;
  /**
   * Wakes the event feed's long-polls and streams on `NOTIFY public_events` (one LISTEN connection of its own, opened
   * on the first waiter). Closed first when the process stops, so that open streams end and the server can close.
   */
  feedWaker: FeedWaker;
  /** The counters the adapters feed (ledger call latency, rate-limit refusals, idempotent replays): /metrics shows them. */
  metrics: OperationalMetrics;
  close(): Promise<void>;
}

export class SessionAuthenticator implements Authenticator {
  constructor(
    private readonly tokens: TokenService,
    private readonly sessions: SessionStore,
  ) {}

  async authenticate(token: string): Promise<AuthContext> {
    const claims = this.tokens.verifyAccess(token);
    if (!isUuid(claims.sid) || !isUuid(claims.sub)) throw new UnauthorizedError('Invalid or expired token', 'invalid_token');
    const session = await this.sessions.findActive(claims.sid);
    if (!session || session.userId !== claims.sub) throw new UnauthorizedError('Session expired or revoked', 'session_revoked');
    return { userId: session.userId, tenantId: session.tenantId, sessionId: session.id, deviceId: session.deviceId };
  }
}

const openSearchIndex = async (config: Config, knex: Knex, pgPool: pg.Pool): Promise<SearchIndex> => {
  if (config.OPENSEARCH_URL) {
    const { OpenSearchSearchIndex } = await import('./search/opensearch');
    const index = OpenSearchSearchIndex.fromUrl(config.OPENSEARCH_URL, { indexPrefix: config.OPENSEARCH_INDEX_PREFIX });
    await index.ensureIndex();
    return index;
  }
  return new PostgresSearchIndex(knex, pgPool);
};

const openEventStore = async (config: Config, pgPool: pg.Pool): Promise<EventStore> => {
  if (config.EVENTSTORE_URL) {
    const { EventStoreDbEventStore } = await import('./event-store/eventstoredb');
    return EventStoreDbEventStore.fromConnectionString(config.EVENTSTORE_URL);
  }
  return new PostgresEventStore({ pool: pgPool });
};

/**
 * The ledger client: the embedded sandbox network (keys derived from its passphrase) or a configured Horizon. Its
 * source accounts take turns through `sourceLock`: a PostgresSourceLock in a service, so every process does.
 */
export const createLedgerGateway = (
  config: Config,
  self: { url: string | null },
  sourceLock?: SourceAccountLock,
  onCall?: (call: LedgerCall) => void,
  clock?: () => Date,
): LedgerGateway => {
  const sandbox = config.LEDGER_MODE === 'sandbox' ? sandboxKeys(config.STELLAR_NETWORK_PASSPHRASE) : null;
  return new LedgerGateway({
    horizonUrl: () => {
      if (config.HORIZON_URL) return config.HORIZON_URL;
      if (!self.url) throw new Error('the sandbox ledger URL is not known before the HTTP server answers');
      return `${self.url}/sandbox/horizon`;
    },
    networkPassphrase: config.STELLAR_NETWORK_PASSPHRASE,
    assetCode: config.STELLAR_ASSET_CODE,
    assetIssuer: config.STELLAR_ASSET_ISSUER ?? sandbox!.issuer.publicKey(),
    platformAccount: config.PLATFORM_ACCOUNT ?? sandbox!.platform.publicKey(),
    signingKeypair: config.LEDGER_SIGNING_SECRET ? Keypair.fromSecret(config.LEDGER_SIGNING_SECRET) : sandbox!.signing,
    platformKeypair: config.PLATFORM_SECRET ? Keypair.fromSecret(config.PLATFORM_SECRET) : sandbox!.platform,
    homeDomain: config.LEDGER_HOME_DOMAIN,
    allowHttp: config.APP_ENV !== 'production',
    ...(onCall ? { onCall } : {}),
    ...(clock ? { clock } : {}),
  }, sourceLock);
};

export interface CreateServicesOptions {
  /** Create the database if missing and run migrations (default true). */
  migrate?: boolean;
  logger?: Logger;
}

export const createServices = async (config: Config, options: CreateServicesOptions = {}): Promise<Services> => {
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  if (options.migrate !== false) await ensureDatabase(config.DATABASE_URL);
  // The event store and hot reads use the pg pool; knex (read models, migrations) gets half as many.
  const knex = createKnex(config.DATABASE_URL, Math.max(2, Math.ceil(config.DB_POOL_SIZE / 2)));
  if (options.migrate !== false) await migrate(knex, config.DATABASE_URL);
  const pgPool = createPgPool(config.DATABASE_URL, config.DB_POOL_SIZE);
  const redis = createRedis(config.REDIS_URL, config.REDIS_KEY_PREFIX);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
  const store = await openEventStore(config, pgPool);
  const tokens = new TokenService({ secret: config.JWT_SECRET, keyId: config.JWT_KEY_ID, previousKeys: config.JWT_PREVIOUS_KEYS, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });
  const sessions = new SessionStore(knex, pgPool);
  const rateLimiter = new RateLimiter(redis, logger);
  const waiter = new CheckpointWaiter(knex);
  const searchIndex = await openSearchIndex(config, knex, pgPool);
  const embedder = createEmbedder({ url: config.EMBEDDINGS_URL, model: config.EMBEDDINGS_MODEL });
  const self: { url: string | null } = { url: null };
  const metrics = new OperationalMetrics();
  const sandboxLedger = config.LEDGER_MODE === 'sandbox' ? new SandboxLedger(knex, { passphrase: config.STELLAR_NETWORK_PASSPHRASE, assetCode: config.STELLAR_ASSET_CODE }) : null;
  // Never in production: there, time is the system's and nothing can move it.
  const sandboxClock = sandboxLedger && config.APP_ENV !== 'production' ? await SandboxClock.open({ ledger: sandboxLedger, redis, keyPrefix: config.REDIS_KEY_PREFIX, logger }) : null;
  const clock = sandboxClock ? sandboxClock.now : () => new Date();
  const ledger = createLedgerGateway(config, self, new PostgresSourceLock(pgPool, config.LEDGER_TURN_TIMEOUT_MS), metrics.ledgerCall, clock);
  const jobs = new BullJobQueue({
    url: config.REDIS_URL,
    keyPrefix: config.REDIS_KEY_PREFIX,
    logger,
    queues: Object.values(JOB_QUEUES),
    attempts: config.JOBS_ATTEMPTS,
    retryBaseMs: config.JOBS_RETRY_BASE_MS,
    keepCompletedSeconds: config.JOBS_KEEP_COMPLETED_SECONDS,
    keepFailedSeconds: config.JOBS_KEEP_FAILED_SECONDS,
    clock,
    ...(sandboxClock ? { syncClock: () => sandboxClock.refresh() } : {}),
  });
  const feedWaker = new FeedWaker({
    connect: async () => {
      const client = new pg.Client({ connectionString: config.DATABASE_URL, application_name: 'cagnotte-feed-waker' });
      await client.connect();
      return client;
    },
    maxWaitersPerTenant: config.FEED_MAX_WAITERS_PER_TENANT,
    onError: (err) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'feed waker: LISTEN public_events lost, listening again'),
  });
  return {
    config,
    logger,
    knex,
    pgPool,
    redis,
    store,
    commandQueue: new KeyedQueue(),
    tokens,
    sessions,
    credentials: new CredentialStore(knex),
    rateLimiter,
    waiter,
    recentWrites: new RecentWrites(),
    searchIndex,
    embedder,
    oneTime: new OneTimeUse(redis),
    mail: new MailOutbox(knex),
    jobs,
    ledger,
    sandboxLedger,
    clock,
    sandboxClock,
    self,
    idempotency: new IdempotencyStore(pgPool, logger),
    feedWaker,
    metrics,
    async close() {
      await feedWaker.close();
      await sandboxClock?.close();
      await jobs.close();
      await store.close();
      await Promise.allSettled([knex.destroy(), pgPool.end(), redis.quit()]);
    },
  };
};

/** The HTTP kit every route is mounted with: session authentication, tenant resolution, rate limits, idempotency. */
export const httpKit = (services: Services, tenants: TenantDirectory): HttpKit => ({
  authenticator: new SessionAuthenticator(services.tokens, services.sessions),
  apiKeys: new ApiKeyStore(services.knex),
  tenants,
  rateLimiter: services.rateLimiter,
  idempotency: services.idempotency,
  defaultTenantSlug: services.config.DEFAULT_TENANT,
  onIdempotentReplay: services.metrics.idempotentReplay,
});
