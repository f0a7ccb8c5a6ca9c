import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FeeSchedule } from '@cagnotte/event-schemas';
import { KeyedQueue, PostgresEventStore, loadConfig, type NewEvent } from '@cagnotte/infra';
import { onTestTeardown, testPgPool } from '@cagnotte/infra/src/testing/resources';
import { systemMetadata } from '../escrow/runtime';
import { accountStream } from '../shared/context';
import { issueActivationInvoice } from './fee-invoices';
import type { InvoicingDeps } from './settlement-invoices';

/**
 * The platform's fee invoices outside a settlement take their VAT from the tenant's fee schedule, through the one fee
 * rule: a tenant that charges 5.5 % in France invoices an activation fee at S 5.5 (the EU standard rate would say
 * 20), one that charges 0 at Z; each asked for its own tenant.
 */
const test = suite('fee invoices: the activation fee at the tenant’s VAT rates');

const store = new PostgresEventStore({ pool: testPgPool(), listen: false });
onTestTeardown(() => store.close());

const meta = (tenantId: string) => ({ tenantId, actor: { kind: 'system' as const, id: 'fee-invoices-spec' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });
const G = (c: string) => `G${c.repeat(55)}`;

/** A consumer in France who paid the 1-unit activation fee: the account stream as registration and the grant leave it. */
const settledGrant = async (tenantId: string) => {
  const userId = randomUUID();
  const grantId = randomUUID();
  const now = new Date().toISOString();
  const e = (type: string, data: Record<string, unknown>): NewEvent => ({ id: randomUUID(), type, schemaVersion: 1, data, metadata: meta(tenantId) });
  await store.append(
    accountStream(userId),
    [
      e('AccountRegistered', { userId, tenantId, email: `${userId.slice(0, 8)}@example.test`, phone: null, displayName: 'Noé', role: 'user', accountType: 'CONSUMER', country: 'FR', currency: 'EUR', timezone: 'Europe/Paris', signupSource: 'spec', registeredAt: now }),
      e('OrganiserGrantPrepared', { grantId, userId, ledgerAccount: G('A'), destination: G('B'), assetCode: 'EURC', assetIssuer: G('C'), amount: '1.0000000', memoHash: 'c'.repeat(64), nonce: null, preparedAt: now }),
      e('OrganiserGrantSettled', { grantId, userId, txHash: 'd'.repeat(64), ledger: 7, via: 'txHash', settledAt: now }),
    ],
    { expectedRevision: 'no_stream' },
  );
  return { userId, grantId };
};

const deps = (rates: Record<string, FeeSchedule['vat']>, asked: string[]): InvoicingDeps => ({
  store,
  pgPool: testPgPool(),
  commandQueue: new KeyedQueue(),
  platform: loadConfig({ PLATFORM_COUNTRY: 'FR', PLATFORM_VAT_ID: 'FR40123456824' }),
  feeSchedule: async (tenantId) => {
    asked.push(tenantId);
    return { vat: rates[tenantId]! };
  },
  clock: () => new Date(),
});

test('given tenants charging 5.5 % and 0 % in France, then their activation fee invoices say S 5.5 and Z, each from its own schedule', async () => {
  const [reduced, zero] = [randomUUID(), randomUUID()];
  const asked: string[] = [];
  const d = deps({ [reduced]: { default: '20', byCountry: { FR: '5.5' } }, [zero]: { default: '0', byCountry: {} } }, asked);
  for (const [tenantId, expected, tax] of [[reduced, ['S', '5.5'], '0.05'], [zero, ['Z', '0'], '0.00']] as const) {
    const { userId, grantId } = await settledGrant(tenantId);
    const [outcome] = await issueActivationInvoice(d, { type: 'activation', tenantId, userId, grantId }, systemMetadata('spec', tenantId, new Date().toISOString()));
    assert.ok(outcome?.issued, 'the activation fee is invoiced');
    const stream = await store.readStream(`invoices-${tenantId}-platform-O`);
    const doc = (stream[0]!.data as { document: { vatBreakdown: Array<{ category: string; rate: string; taxAmount: string }>; totals: { grandTotal: string } } }).document;
    assert.equal(doc.vatBreakdown.map((b) => [b.category, b.rate]), [[...expected]]);
    assert.equal([doc.vatBreakdown[0]!.taxAmount, doc.totals.grandTotal], [tax, '1.00']);
  }
  assert.equal(asked, [reduced, zero], 'each invoice asked its own tenant’s schedule');
});

test.run();
