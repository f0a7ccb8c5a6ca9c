/**
 * Identity's one write path (issue 9): tenant creation and registration go through runCommand like every other
 * command. A race on a new stream loses to the decider (409 from the domain, not from a caught append error), and a
 * taken email leaves neither events nor a second credentials row.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConflictError } from '@cagnotte/domain';
import { createTenant, registerUser } from '@cagnotte/command-api';
import { KeyedQueue } from '@cagnotte/infra';
import { startApi, uniqueSlug, type TestApi } from './harness';

const test = suite<{ api: TestApi }>('e2e: identity writes through runCommand');

test.before(async (ctx) => {
  ctx.api = await startApi();
});
test.after(async (ctx) => ctx.api.stop());

const meta = () => ({ actor: { kind: 'operator' as const, id: 'e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });

/** What another process would be: the same store, its own per-stream queue, so both read the empty stream. */
const otherProcess = (api: TestApi) => ({ store: api.services.store, pgPool: api.services.pgPool, commandQueue: new KeyedQueue(), knex: api.services.knex });

const settle = async <T>(p: Promise<T>) => p.then((value) => ({ value }), (error: unknown) => ({ error }));

test('two creations of one slug in a race: one tenant, the other a tenant_exists conflict decided on the fresh stream', async ({ api }) => {
  const slug = uniqueSlug();
  const results = await Promise.all(
    Array.from({ length: 4 }, (_, i) => settle(createTenant(i % 2 ? api.services : otherProcess(api), { slug, whiteLabel: true, approvedOrigins: [] }, meta()))),
  );
  const won = results.filter((r) => 'value' in r);
  const lost = results.filter((r): r is { error: unknown } => 'error' in r);
  assert.is(won.length, 1, 'exactly one creation wins');
  for (const l of lost) {
    assert.instance(l.error, ConflictError);
    assert.is((l.error as ConflictError).code, 'tenant_exists');
  }
  assert.is((await api.services.store.readStream(`tenant-${slug}`)).length, 1);
});

test('a taken email is a conflict that leaves no events and no second credentials row, even in a race', async ({ api }) => {
  const tenant = await api.tenant();
  const email = `${randomUUID().slice(0, 12)}@example.test`;
  const input = (displayName: string) => ({ tenantId: tenant.id, email, password: 'correct horse battery', phone: null, displayName, role: 'user' as const, accountType: 'CONSUMER' as const, signupSource: 'e2e' });
  const results = await Promise.all(['A', 'B', 'C'].map((n, i) => settle(registerUser(i % 2 ? api.services : otherProcess(api), input(n), meta()))));
  assert.is(results.filter((r) => 'value' in r).length, 1, 'exactly one registration wins');
  for (const r of results) if ('error' in r) assert.is((r.error as ConflictError).code, 'email_taken');
  const again = await settle(registerUser(api.services, input('D'), meta()));
  assert.ok('error' in again && again.error instanceof ConflictError && again.error.code === 'email_taken');
  const events = await api.services.knex('es_events').where({ type: 'AccountRegistered' }).whereRaw("data->>'email' = ?", [email]).count<{ count: string }[]>('* as count');
  assert.is(Number(events[0]!.count), 1, 'one AccountRegistered');
  const credentials = await api.services.knex('credentials').where({ tenant_id: tenant.id, email }).count<{ count: string }[]>('* as count');
  assert.is(Number(credentials[0]!.count), 1, 'one credentials row');
});

test.run();
