import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createTenant, registerUser } from '@cagnotte/command-api';
import { createServices, loadConfig, type ExpectedRevision, type Services } from '@cagnotte/infra';
import { createProjectorRunner } from '@cagnotte/projectors';
import { PUBLIC_EVENTS_TABLE, publicEventId } from '@cagnotte/read-models';
import { json } from './http';
import { poolHistory, sampleEvent } from './pool-events';

/** What the webhooks benchmark shares between its parts: a tenant, its organiser's session, one pool to update. */

/** Wall-clock milliseconds with sub-millisecond resolution, the same clock the receiver stamps receipts with. */
export const wallMs = (): number => performance.timeOrigin + performance.now();

/**
 * The bench's services; `redisPrefix` keeps its queues (the deliveries' among them) apart from any other process on the
 * same Redis: a `pnpm start` beside it would otherwise share the webhook-deliveries queue with the bench's workers.
 */
export const benchServices = (url: string, redisPrefix: string): Promise<Services> =>
  createServices(loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', REDIS_KEY_PREFIX: redisPrefix }), { migrate: false });


export interface Organiser {
  tenantId: string;
  slug: string;
  userId: string;
  /** Headers of the organiser's session: X-Service-Tenant and the bearer token. */
  auth: Record<string, string>;
}

/** A tenant and its organiser (command-api, catch-up of the identity projections here), logged in over HTTP. */
export const organiserSession = async (services: Services, port: number): Promise<Organiser> => {
  const runner = createProjectorRunner(services);
  const meta = () => ({ actor: { kind: 'operator' as const, id: 'bench' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });
  const slug = `bench-${randomUUID().slice(0, 8)}`;
  const { tenant } = await createTenant(services, { slug, whiteLabel: true, approvedOrigins: [] }, meta());
  const email = `organiser-${randomUUID().slice(0, 8)}@example.test`;
  const password = 'correct horse battery';
  const user = await registerUser(
    services,
    { tenantId: tenant.tenantId, email, password, phone: null, displayName: 'Bench Organiser', role: 'organiser', accountType: 'CONSUMER', signupSource: 'bench' },
    meta(),
  );
  await runner.catchUp();
  const tenantHeader = { 'x-service-tenant': slug };
  const login = await json(port, 'POST', '/api/auth/login/password', tenantHeader, { email, password });
  return { tenantId: tenant.tenantId, slug, userId: user.userId, auth: { ...tenantHeader, authorization: `Bearer ${String(login.body.data.token)}` } };
};

/**
 * The organiser's pool, written to the store as the command handlers would (PoolCreated, PoolPublished: the public
 * events pool.created and pool.published, owned by the organiser), then its draft updates one append at a time (each
 * a `pool.updated`). `update()` resolves when the append has returned, with the public event's id and that moment.
 */
export const benchPool = async (services: Services, o: Organiser) => {
  const { poolId, events } = poolHistory({ tenantId: o.tenantId, organiserId: o.userId, length: 2, archived: false, startMs: Date.now() });
  const stream = `pool-${poolId}`;
  let revision: ExpectedRevision = (await services.store.append(stream, events, { expectedRevision: 'no_stream' })).nextExpectedRevision;
  let n = 0;
  /** Appends `count` updates in one append (one transaction); resolves with their public ids and the time it returned. */
  const update = async (count = 1): Promise<{ ids: string[]; at: number }> => {
    const batch = Array.from({ length: count }, () => sampleEvent(o.tenantId, o.userId, poolId, ++n));
    const r = await services.store.append(stream, batch, { expectedRevision: revision });
    const at = wallMs();
    revision = r.nextExpectedRevision;
    return { ids: batch.map((e) => publicEventId(e.id, 0)), at };
  };
  return { poolId, firstIds: events.map((e) => publicEventId(e.id, 0)), update };
};

export type BenchPool = Awaited<ReturnType<typeof benchPool>>;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The receiver (webhook-receiver.ts) in a child process. */
export const startReceiver = (): Promise<Receiver> =>
  new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'webhook-receiver.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const timer = setTimeout(() => reject(new Error('the receiver did not start within 30 s')), 30_000);
    child.once('message', (m: { port?: number }) => {
      clearTimeout(timer);
      resolve(new Receiver(child, m.port ?? 0));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the receiver exited with ${code}`));
    });
  });

export class Receiver {
  constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {}

  private ask<T>(message: unknown, pick: (m: Record<string, unknown>) => T | undefined, timeoutMs: number): Promise<T | null> {
    return new Promise((resolve) => {
      const onMessage = (m: Record<string, unknown>) => {
        const v = pick(m);
        if (v !== undefined) done(v);
      };
      const timer = setTimeout(() => done(null), timeoutMs);
      const done = (v: T | null) => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        resolve(v);
      };
      this.child.on('message', onMessage);
      this.child.send(message as never);
    });
  }

  /** Resolves with the wall-clock time of the n-th receipt, or null when it has not come within `timeoutMs`. */
  reached(n: number, timeoutMs: number): Promise<number | null> {
    return this.ask({ expect: n }, (m) => (m.reached === n ? Number(m.at) : undefined), timeoutMs);
  }

  async dump(): Promise<{ receipts: Array<[string, string, number]>; duplicates: number }> {
    const r = await this.ask('dump', (m) => (Array.isArray(m.receipts) ? (m as { receipts: Array<[string, string, number]>; duplicates: number }) : undefined), 30_000);
    return r ?? { receipts: [], duplicates: 0 };
  }

  reset(): void {
    this.child.send('reset');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.send('stop');
    const timer = setTimeout(() => this.child.kill(), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

/** The little of a pg client the watch uses (the scripts package does not depend on pg itself). */
interface ListenClient {
  query(text: string): Promise<unknown>;
  on(event: 'notification', listener: () => void): unknown;
  release(): void;
}

/**
 * When each awaited public event reached the feed: LISTEN public_events (the projection's NOTIFY at its commit), then
 * which awaited ids the table holds. Splits a commit → answer delay into the projection's part and the reader's.
 */
export class ProjectionWatch {
  private readonly pending = new Set<string>();
  readonly seenAt = new Map<string, number>();
  private checking: Promise<void> = Promise.resolve();

  private constructor(
    private readonly services: Services,
    private readonly client: ListenClient,
  ) {}

  static async open(services: Services): Promise<ProjectionWatch> {
    const client = (await services.pgPool.connect()) as ListenClient;
    const watch = new ProjectionWatch(services, client);
    client.on('notification', () => {
      const at = wallMs();
      watch.checking = watch.checking.then(() => watch.check(at));
    });
    await client.query('LISTEN public_events');
    return watch;
  }

  await(ids: string[]): void {
    for (const id of ids) this.pending.add(id);
  }

  private async check(at: number): Promise<void> {
    if (this.pending.size === 0) return;
    const ids = [...this.pending];
    const rows = (await this.services.knex(PUBLIC_EVENTS_TABLE).whereIn('id', ids).select('id')) as Array<{ id: string }>;
    for (const r of rows) {
      this.pending.delete(r.id);
      this.seenAt.set(r.id, at);
    }
  }

  async close(): Promise<void> {
    await this.checking.catch(() => undefined);
    await this.client.query('UNLISTEN public_events').catch(() => undefined);
    this.client.release();
  }
}
