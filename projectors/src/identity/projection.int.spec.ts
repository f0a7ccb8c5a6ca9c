import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { currentMandate, type DomainEvent } from '@cagnotte/event-schemas';
import { comparePositions, type RecordedEvent } from '@cagnotte/infra';
import { ProjectorRunner, applyBatch, type Projection, type TableMap } from '../runtime';
import { silent, specKnex, specStore, toNew, uniq } from '../spec-support';
import { identityProjection } from './projection';

/**
 * The identity projection (tenants, accounts, mandates, organiser grants) on copies of its tables, so that
 * a rebuild here never swaps the live rm_ tables other specs read: one event at a time, one batch, a replay
 * and a rebuild from position 0 must all write the same rows.
 */
const Identity = suite('identity projection');

const TABLES = identityProjection.tables;
const KEYS: Record<string, string> = { rm_tenants: 'id', rm_accounts: 'id', rm_mandates: 'mandate_id', rm_organiser_grants: 'grant_id' };

const onCopies = async (): Promise<Projection> => {
  const prefix = uniq('spec_idn');
  const copies = new Map(TABLES.map((t) => [t, `${prefix}_${t}`]));
  for (const [live, copy] of copies) await specKnex().raw('CREATE TABLE ?? (LIKE ?? INCLUDING ALL)', [copy, live]);
  const to = (table: TableMap): TableMap => (t) => table(copies.get(t) ?? t);
  return {
    name: prefix,
    tables: [...copies.values()],
    handles: identityProjection.handles,
    apply: (trx, e, table) => identityProjection.apply(trx, e, to(table)),
    applyMany: (trx, es, table) => identityProjection.applyMany!(trx, es, to(table)),
  };
};

const at = (minute: number) => new Date(Date.UTC(2026, 0, 5, 9, minute)).toISOString();
const account = (c: string) => `G${c.repeat(55)}`;

/** A tenant, a user who links a ledger account, pays the organiser fee and accepts then revokes mandates, and a pool of theirs. */
const history = () => {
  const tenantId = randomUUID();
  const userId = randomUUID();
  const slug = `spec-${tenantId.slice(0, 8)}`;
  const grantId = randomUUID();
  const [m1, m2, m3] = [randomUUID(), randomUUID(), randomUUID()];
  const fee = currentMandate('FEE');
  const mandate = (mandateId: string, kind: 'FEE' | 'RELAIS' | 'COMMISSION', minute: number): DomainEvent => ({
    type: 'MandateAccepted',
    data: { mandateId, userId, kind, ...currentMandate(kind), ip: '10.0.0.1', acceptedAt: at(minute) },
  });
  const streams: Array<[string, DomainEvent[]]> = [
    [`tenant-${slug}`, [{ type: 'TenantCreated', data: { tenantId, slug, name: 'Spec Tenant', whiteLabel: false, approvedOrigins: ['https://spec.test'], createdAt: at(0) } }]],
    [
      `account-${userId}`,
      [
        {
          type: 'AccountRegistered',
          data: { userId, tenantId, email: `${userId}@spec.test`, phone: null, displayName: 'Spec', role: 'user', accountType: 'CONSUMER', country: 'FR', currency: 'EUR', timezone: 'Europe/Paris', signupSource: 'spec', registeredAt: at(1) },
        },
        mandate(m1, 'FEE', 2),
        { type: 'LedgerAccountLinked', data: { userId, ledgerAccount: account('A'), challengeHash: 'a'.repeat(64), linkedAt: at(3) } },
        {
          type: 'OrganiserGrantPrepared',
          data: { grantId, userId, ledgerAccount: account('A'), destination: account('B'), assetCode: 'EURC', assetIssuer: account('C'), amount: '1.0000000', memoHash: 'b'.repeat(64), nonce: null, preparedAt: at(4) },
        },
        { type: 'OrganiserGrantSettled', data: { grantId, userId, txHash: 'c'.repeat(64), ledger: 7, via: 'txHash', settledAt: at(5) } },
        { type: 'RoleGranted', data: { userId, role: 'organiser', reason: 'organiser activation fee paid', grantId, grantedAt: at(5) } },
        mandate(m2, 'RELAIS', 6),
        { type: 'MandateRevoked', data: { mandateId: m1, userId, kind: 'FEE', ip: '10.0.0.2', revokedAt: at(7) } },
      ],
    ],
    // The pool's own record of a COMMISSION acceptance: not one of the user's mandates.
    [`pool-${randomUUID()}`, [mandate(m3, 'COMMISSION', 8)]],
  ];
  return { tenantId, userId, grantId, mandates: [m1, m2, m3], fee, streams };
};
type History = ReturnType<typeof history>;

const appendHistory = async (h: History): Promise<RecordedEvent[]> => {
  for (const [streamId, events] of h.streams) await specStore().append(streamId, events.map((e) => toNew(e, h.tenantId)), { expectedRevision: 'no_stream' });
  const all = (await Promise.all(h.streams.map(([s]) => specStore().readStream(s)))).flat();
  return all.sort((a, b) => comparePositions(a.position, b.position));
};

/** The rows of this history in each table of the projection, by key. */
const rowsOf = async (p: Projection, h: History) => {
  const ids: Record<string, string[]> = { rm_tenants: [h.tenantId], rm_accounts: [h.userId], rm_mandates: h.mandates, rm_organiser_grants: [h.grantId] };
  const out: Record<string, unknown[]> = {};
  for (const [i, logical] of TABLES.entries()) {
    const key = KEYS[logical]!;
    out[logical] = await specKnex()(p.tables[i]!).whereIn(key, ids[logical]!).orderBy(key);
  }
  return out;
};

Identity('one event at a time, one batch, a replay and a rebuild from position 0 write the same rows', async () => {
  const h = history();
  const events = await appendHistory(h);
  const single = await onCopies();
  const batched = await onCopies();
  for (const e of events) await applyBatch(specKnex(), single, [e]);
  await applyBatch(specKnex(), batched, events);
  const expected = await rowsOf(batched, h);
  assert.equal(await rowsOf(single, h), expected, 'one at a time = one batch');

  // A replay under a fresh checkpoint: every event is at or below its row's revision.
  await applyBatch(specKnex(), { ...batched, name: uniq('spec_idn_replay') }, events);
  assert.equal(await rowsOf(batched, h), expected, 'replayed');

  const runner = new ProjectorRunner({ store: specStore(), knex: specKnex(), projections: [batched], logger: silent });
  await runner.rebuild(batched.name);
  assert.equal(await rowsOf(batched, h), expected, 'rebuilt from position 0');
});

Identity('the rows: account as of its last event, the user mandates only (newest first), the settled grant', async () => {
  const h = history();
  const p = await onCopies();
  await applyBatch(specKnex(), p, await appendHistory(h));
  const rows = await rowsOf(p, h);
  const [tenant] = rows.rm_tenants as Array<Record<string, unknown>>;
  assert.equal(tenant!.approved_origins, ['https://spec.test']);
  const [acct] = rows.rm_accounts as Array<Record<string, unknown>>;
  assert.is(acct!.role, 'organiser');
  assert.is(acct!.ledger_account, account('A'));
  assert.is(String(acct!.revision), '5');

  const [m1, m2] = h.mandates;
  const listed = await specKnex()(p.tables[2]!).where({ owner_id: h.userId }).orderBy('accepted_revision', 'desc');
  assert.equal(
    listed.map((r) => [r.mandate_id, r.kind, r.status, r.accepted_at, r.revoked_at, r.revoked_ip]),
    [
      [m2, 'RELAIS', 'ACCEPTED', at(6), null, null],
      [m1, 'FEE', 'REVOKED', at(2), at(7), '10.0.0.2'],
    ],
  );
  assert.is((rows.rm_mandates as unknown[]).length, 2, 'the pool stream COMMISSION acceptance is not folded');

  const [grant] = rows.rm_organiser_grants as Array<Record<string, unknown>>;
  assert.is(grant!.owner_id, h.userId);
  assert.is(grant!.status, 'SETTLED');
  assert.is(grant!.settled_at, at(5));
  assert.is(grant!.tx_hash, 'c'.repeat(64));
});

Identity.run();
