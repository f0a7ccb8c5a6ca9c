import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { computeInvoice } from '@cagnotte/domain';
import type { EventData } from '@cagnotte/event-schemas';
import { INVOICES_TABLE, InvoiceReadModel } from '@cagnotte/read-models';
import type { ProjectedEvent } from '../runtime';
import { specKnex } from '../spec-support';
import { invoicesProjection } from './projection';

const test = suite('invoices projection');

const issued = (tenantId: string, sellerId: string, buyerId: string, sequence: number): ProjectedEvent => {
  const document = computeInvoice({
    typeCode: '380',
    number: `F-2026-${String(sequence).padStart(6, '0')}`,
    issueDate: '2026-03-03',
    currency: 'EUR',
    seller: { name: 'Fromagerie', id: sellerId, vatId: 'FR83123456782', address: { country: 'FR' } },
    buyer: { name: 'Ann', id: buyerId, address: { country: 'FR' } },
    lines: [{ id: '1', name: 'Comté', quantity: 2, netUnitPrice: '15.4167', vatCategory: 'S', vatRate: '20' }],
    prepaid: '37.00',
  });
  const data: EventData<'InvoiceIssued'> = {
    invoiceId: randomUUID(),
    tenantId,
    issuer: { kind: 'account', id: sellerId },
    recipient: { kind: 'account', id: buyerId },
    kind: 'GOODS',
    poolId: randomUUID(),
    reservationId: randomUUID(),
    sourceKey: `goods:${randomUUID()}`,
    sequence,
    document,
    issuedAt: '2026-03-03T10:00:00.000Z',
  };
  return { type: 'InvoiceIssued', data, id: randomUUID(), streamId: `invoices-${tenantId}-acct-${sellerId}-F`, revision: BigInt(sequence - 1) } as unknown as ProjectedEvent;
};

test('an InvoiceIssued is one row; applied twice (a replay, a redelivered batch) it is still one, unchanged; the lists scope by party', async () => {
  const knex = specKnex();
  const [tenantId, sellerId, buyerId] = [randomUUID(), randomUUID(), randomUUID()];
  const first = issued(tenantId, sellerId, buyerId, 1);
  const second = issued(tenantId, sellerId, buyerId, 2);
  for (const e of [first, second, first, second]) await knex.transaction((trx) => invoicesProjection.apply(trx, e, (t) => t));
  assert.is(Number((await knex(INVOICES_TABLE).where({ tenant_id: tenantId }).count<{ count: string }[]>('* as count'))[0]!.count), 2);
  const model = new InvoiceReadModel(knex);
  const received = await model.list(tenantId, { party: { userId: buyerId, direction: 'received' } }, 1, 20);
  assert.equal(received.rows.map((r) => r.number), ['F-2026-000002', 'F-2026-000001']);
  assert.is((await model.list(tenantId, { party: { userId: buyerId, direction: 'issued' } }, 1, 20)).total, 0);
  assert.is((await model.list(tenantId, { party: { userId: sellerId, direction: 'issued' }, type: '381' }, 1, 20)).total, 0);
  const row = await model.byId(tenantId, (first.data as { invoiceId: string }).invoiceId);
  assert.equal([row!.issue_date, row!.grand_total, row!.document.totals.prepaid], ['2026-03-03', '37.00', '37.00']);
  assert.is(await model.byId(randomUUID(), (first.data as { invoiceId: string }).invoiceId), null, 'another tenant does not see it');
});

test.run();
