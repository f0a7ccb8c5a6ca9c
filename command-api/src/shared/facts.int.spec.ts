import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { KeyedQueue, PostgresEventStore, RecentWrites, loadConfig, type EventStore, type ReadStreamOptions } from '@cagnotte/infra';
import { onTestTeardown, testPgPool } from '@cagnotte/infra/src/testing/resources';
import { accountAggregate, decideAccount } from '@cagnotte/domain';
import { accountStream, tenantStream } from './context';
import { CommandFacts } from './facts';
import { executeCommand } from './execute-command';
import { toNewEvents } from './new-events';

/**
 * The facts a command is decided under, kept per process: each ask reads only the stream's tail (from the kept
 * revision + 1), so a change appended by any process shows at once; a command of this process on the stream drops it.
 */
const test = suite('command facts: the persona and the tenant policy, kept and refreshed from the tail');

let shared: PostgresEventStore | null = null;
const store = (): PostgresEventStore => {
  if (!shared) {
    const s = new PostgresEventStore({ pool: testPgPool(), pollMs: 20 });
    shared = s;
    onTestTeardown(() => s.close());
  }
  return shared;
};

/** The store, with every readStream's options written down. */
const spied = () => {
  const reads: Array<{ stream: string; from: bigint | 'start' | 'end' | undefined }> = [];
  const base = store();
  const proxy = new Proxy(base, {
    get(target, prop, receiver) {
      if (prop === 'readStream') {
        return (stream: string, options?: ReadStreamOptions) => {
          reads.push({ stream, from: options?.fromRevision as bigint | undefined });
          return target.readStream(stream, options);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as EventStore;
  return { store: proxy, reads };
};

const meta = (tenantId: string | null) => ({ tenantId, actor: { kind: 'system' as const, id: 'spec' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });
const append = (stream: string, events: DomainEvent[], tenantId: string | null) => store().append(stream, toNewEvents(events, meta(tenantId)), { expectedRevision: 'any' });

const registered = (userId: string, tenantId: string, role: 'user' | 'organiser' = 'user'): DomainEvent => ({
  type: 'AccountRegistered',
  data: {
    userId,
    tenantId,
    email: `${userId.slice(0, 8)}@example.test`,
    phone: null,
    displayName: 'Spec User',
    role,
    accountType: 'CONSUMER',
    country: 'FR',
    currency: 'EUR',
    timezone: 'Europe/Paris',
    signupSource: 'spec',
    registeredAt: new Date().toISOString(),
  },
});

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const auth = (userId: string, tenantId: string) => ({ userId, tenantId, sessionId: randomUUID(), deviceId: randomUUID() });

test('the persona is folded once, then each ask reads only the tail; what another process appends shows at once', async () => {
  const { store: spy, reads } = spied();
  const userId = randomUUID();
  const tenantId = randomUUID();
  await append(accountStream(userId), [registered(userId, tenantId)], tenantId);
  const facts = new CommandFacts({ store: spy, tenants: { byId: async () => null }, config });

  assert.equal((await facts.actor(auth(userId, tenantId))).role, 'user');
  assert.equal((await facts.persona(auth(userId, tenantId))).account.ledgerAccount, null);
  assert.equal(
    reads.map((r) => r.from),
    [undefined, 1n],
    'the first ask reads the stream, the next only from the revision after the one kept (0 rows)',
  );

  // Another process links a ledger account: the next ask reads it from the tail.
  const ledgerAccount = `G${'A'.repeat(55)}`;
  await append(accountStream(userId), [{ type: 'LedgerAccountLinked', data: { userId, ledgerAccount, challengeHash: 'a'.repeat(64), linkedAt: new Date().toISOString() } }], tenantId);
  assert.is((await facts.persona(auth(userId, tenantId))).account.ledgerAccount, ledgerAccount);
  assert.is(reads.at(-1)!.from, 1n);
  await facts.persona(auth(userId, tenantId));
  assert.is(reads.at(-1)!.from, 2n, 'kept at the revision it was folded at');
});

test('an account that does not exist is a 401 account_missing, asked again every time (nothing is kept for it)', async () => {
  const facts = new CommandFacts({ store: store(), tenants: { byId: async () => null }, config });
  const userId = randomUUID();
  for (let i = 0; i < 2; i++) {
    try {
      await facts.actor(auth(userId, randomUUID()));
      assert.unreachable('a missing account acts');
    } catch (e) {
      assert.is((e as { code?: string }).code, 'account_missing');
    }
  }
  // Registered since: the next ask sees it.
  const tenantId = randomUUID();
  await append(accountStream(userId), [registered(userId, tenantId, 'organiser')], tenantId);
  assert.is((await facts.actor(auth(userId, tenantId))).role, 'organiser');
});

test('the tenant policy: the slug is looked up once, the settings come from the tail of its stream, both facts at once', async () => {
  const { store: spy, reads } = spied();
  const tenantId = randomUUID();
  const slug = `spec-${tenantId.slice(0, 8)}`;
  const userId = randomUUID();
  await append(tenantStream(slug), [{ type: 'TenantCreated', data: { tenantId, slug, name: slug, whiteLabel: true, approvedOrigins: [], createdAt: new Date().toISOString() } }], tenantId);
  await append(accountStream(userId), [registered(userId, tenantId)], tenantId);
  let lookups = 0;
  const facts = new CommandFacts({ store: spy, tenants: { byId: async (id) => (lookups++, id === tenantId ? { slug } : null) }, config });

  const first = await facts.of(auth(userId, tenantId), tenantId);
  assert.is(first.policy.reservationTtlSeconds, config.RESERVATION_TTL_SECONDS, 'the service default while the tenant set none');
  await append(tenantStream(slug), [{ type: 'TenantSettingsChanged', data: { tenantId, settings: { reservationTtlSeconds: 77 }, changedAt: new Date().toISOString() } }], tenantId);
  const second = await facts.of(auth(userId, tenantId), tenantId);
  assert.is(second.policy.reservationTtlSeconds, 77, 'a setting changed by another process shows at the next ask');
  assert.is(lookups, 1, 'a slug never changes: looked up once');
  assert.equal(
    reads.filter((r) => r.stream === tenantStream(slug)).map((r) => r.from),
    [undefined, 1n],
  );
  assert.is((await facts.policy(randomUUID())).reservationTtlSeconds, config.RESERVATION_TTL_SECONDS, 'an unknown tenant has the defaults');
});

test('a command of this process on the account stream drops what was kept; its session is remembered with the position', async () => {
  const { store: spy, reads } = spied();
  const userId = randomUUID();
  const tenantId = randomUUID();
  await append(accountStream(userId), [registered(userId, tenantId)], tenantId);
  const facts = new CommandFacts({ store: spy, tenants: { byId: async () => null }, config });
  const recentWrites = new RecentWrites();
  const runtime = { store: store(), pgPool: testPgPool(), commandQueue: new KeyedQueue(), facts, recentWrites };
  await facts.actor(auth(userId, tenantId));
  const session = randomUUID();
  const outcome = await executeCommand(runtime, {
    stream: accountStream(userId),
    aggregate: accountAggregate,
    decide: (account) => decideAccount({ type: 'LinkLedgerAccount', data: { ledgerAccount: `G${'B'.repeat(55)}`, challengeHash: 'b'.repeat(64) }, metadata: { now: new Date().toISOString() } }, account),
    metadata: meta(tenantId),
    respond: (o) => ({ data: { revision: o.revision.toString() } }),
    session,
  });
  assert.ok(outcome.position);
  assert.equal(recentWrites.lastOf(session), outcome.position, 'the session is remembered with its write');
  assert.ok(outcome.answer.headers?.['X-Event-Position'], 'the answer names its position');
  const before = reads.length;
  assert.is((await facts.persona(auth(userId, tenantId))).account.ledgerAccount, `G${'B'.repeat(55)}`);
  assert.equal(reads.slice(before).map((r) => r.from), [undefined], 'dropped: folded again from the start');

  // A command that changes nothing remembers nothing and names no position.
  const idle = await executeCommand(runtime, { stream: accountStream(userId), aggregate: accountAggregate, decide: () => [], metadata: meta(tenantId), respond: () => ({ data: {} }), session: randomUUID() });
  assert.is(idle.position, null);
  assert.is(idle.answer.headers?.['X-Event-Position'], undefined);
  assert.is(recentWrites.size, 1);
});

test.run();
