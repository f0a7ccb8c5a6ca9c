import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { REQUESTS_TABLE, RequestReadModel } from '@cagnotte/read-models';
import type { ProjectedEvent } from '../runtime';
import { specKnex } from '../spec-support';
import { requestsProjection } from './projection';

const test = suite('payment requests projection');

const WALLET = 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H';
const at = (m: number) => new Date(Date.UTC(2026, 2, 1, 10, m)).toISOString();

const history = (requestId: string, tenantId: string, payeeId: string): DomainEvent[] => [
  {
    type: 'PaymentRequestCreated',
    data: {
      requestId, tenantId, livemode: false, payeeId, payeeName: 'Studio SAS', payeeWallet: WALLET, asset: { code: 'EURC', issuer: WALLET }, memoHash: 'ab'.repeat(32),
      lines: [{ description: 'Work', quantity: 1, unitAmount: '100', vatCategory: 'S', vatRate: '20' }], subtotal: '100.00', tax: '20.00', amountDue: '120.00',
      currency: 'EUR', dueAt: at(50), customer: null, description: null, metadata: {}, createdAt: at(1),
    },
  },
  { type: 'PaymentRequestPaymentRecorded', data: { requestId, livemode: false, txHash: 'cd'.repeat(32), ledger: 3, from: WALLET, amount: '50', amountPaid: '50.00', late: false, recordedAt: at(2) } },
];
const projected = (e: DomainEvent, requestId: string, revision: number): ProjectedEvent =>
  ({ ...e, id: randomUUID(), streamId: `request-${requestId}`, revision: BigInt(revision), metadata: { tenantId: null } }) as unknown as ProjectedEvent;

test('a request is one row, folded; its events applied twice change nothing (same document, same seq); the list is newest first by seq and scoped', async () => {
  const knex = specKnex();
  const [tenantId, payeeId] = [randomUUID(), randomUUID()];
  const [a, b] = [randomUUID(), randomUUID()];
  const events = [...history(a, tenantId, payeeId).map((e, k) => projected(e, a, k)), ...history(b, tenantId, payeeId).map((e, k) => projected(e, b, k))];
  for (const e of events) await knex.transaction((trx) => requestsProjection.apply(trx, e, (t) => t));
  const before = await knex(REQUESTS_TABLE).where({ tenant_id: tenantId }).orderBy('seq', 'asc');
  for (const e of events) await knex.transaction((trx) => requestsProjection.apply(trx, e, (t) => t));
  const after = await knex(REQUESTS_TABLE).where({ tenant_id: tenantId }).orderBy('seq', 'asc');
  assert.equal(after, before);
  assert.is(after.length, 2);
  const model = new RequestReadModel(knex);
  const scope = { tenantId, livemode: false, payeeId };
  const doc = await model.byId(scope, a);
  assert.equal([doc!.status, doc!.amountPaid, doc!.payments.length, doc!.revision], ['open', '50.00', 1, 1n]);
  assert.is(await model.byId({ ...scope, livemode: true }, a), null, 'the other mode does not see it');
  assert.is(await model.byId({ ...scope, payeeId: randomUUID() }, a), null, 'another payee does not see it');
  const listed = model.docsOf(await model.listQuery(scope).orderBy('seq', 'desc'));
  assert.equal(listed.map((d) => d.requestId), [b, a]);
  assert.ok(listed[0]!.seq > listed[1]!.seq);
});

test.run();
