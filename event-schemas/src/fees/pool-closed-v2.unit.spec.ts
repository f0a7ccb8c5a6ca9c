import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseEvent } from '../registry';

const test = suite('PoolClosed v2: the frozen payment rule');
const metadata = { tenantId: null, actor: { kind: 'system', id: 'spec' }, correlationId: randomUUID(), causationId: null, occurredAt: '2025-01-01T00:00:00.000Z' };
const v1 = {
  poolId: randomUUID(),
  outcome: 'SUCCEEDED',
  reason: 'DEADLINE',
  paidUnits: 1,
  paidAmount: '10.00',
  finalPrices: [],
  fees: { platformFeePercent: '2.5', organiserCommissionPercent: null },
  release: { after: 'CLOSE', inspectionDays: 3, disputeResponseDays: 7 },
  closedAt: '2025-01-01T00:00:00.000Z',
};

test('given a v1 PoolClosed, when read, then its fees carry the bare percentage as the rule and no VAT', () => {
  const e = parseEvent({ type: 'PoolClosed', schemaVersion: 1, data: v1, metadata });
  assert.is(e.schemaVersion, 2);
  assert.equal((e.data as { fees: unknown }).fees, { platformFeePercent: '2.5', organiserCommissionPercent: null, platformFee: { percent: '2.5', fixed: '0', min: '0', cap: null }, vat: null });
});

test('given a v2 PoolClosed, then a rule with a cap below its minimum is refused', () => {
  const fees = { ...v1.fees, platformFee: { percent: '2.5', fixed: '0.30', min: '5', cap: '1' }, vat: null };
  assert.throws(() => parseEvent({ type: 'PoolClosed', schemaVersion: 2, data: { ...v1, fees }, metadata }));
  const ok = parseEvent({ type: 'PoolClosed', schemaVersion: 2, data: { ...v1, fees: { ...fees, platformFee: { ...fees.platformFee, cap: '20' } } }, metadata });
  assert.equal((ok.data as { fees: { platformFee: unknown } }).fees.platformFee, { percent: '2.5', fixed: '0.30', min: '5', cap: '20' });
});

test.run();
