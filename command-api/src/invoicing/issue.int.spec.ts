import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { goodsInvoice, goodsVat, standardVatRate, type IssueInvoice } from '@cagnotte/domain';
import { parseEvent, type EventData } from '@cagnotte/event-schemas';
import { KeyedQueue, PostgresEventStore, WrongExpectedRevisionError, type EventStore } from '@cagnotte/infra';
import { onTestTeardown, testPgPool } from '@cagnotte/infra/src/testing/resources';
import { systemMetadata } from '../escrow/runtime';
import type { CommandRuntime } from '../shared/run-command';
import { issueInvoice } from './issue';

/**
 * Gapless numbering under contention: several "processes" (each its own command queue and state cache, as separate
 * command-api instances would be) issue on one series at once, each pausing a random while between reading the
 * series and appending to it, so they keep deciding on a head another one has just moved.
 */
const test = suite('issueInvoice: concurrent issues on one series');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let shared: PostgresEventStore | null = null;
const store = (): PostgresEventStore => {
  if (!shared) {
    const s = new PostgresEventStore({ pool: testPgPool(), pollMs: 20 });
    shared = s;
    onTestTeardown(() => s.close());
  }
  return shared;
};

/** A process of its own over the shared store, whose reads return late: the window between read and append widens. */
const conflicts = { count: 0 };
const process = (maxDelayMs: number): CommandRuntime => {
  const base = store();
  const delayed = new Proxy(base, {
    get(target, prop, receiver) {
      if (prop === 'readStream') {
        return async (...args: Parameters<EventStore['readStream']>) => {
          const events = await target.readStream(...args);
          await sleep(Math.random() * maxDelayMs);
          return events;
        };
      }
      if (prop === 'append') {
        return async (...args: Parameters<EventStore['append']>) => {
          try {
            return await target.append(...args);
          } catch (error) {
            if (error instanceof WrongExpectedRevisionError) conflicts.count++;
            throw error;
          }
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as EventStore;
  return { store: delayed, pgPool: testPgPool(), commandQueue: new KeyedQueue() };
};

const seller = (id: string) => ({ name: 'Fromagerie du Jura SAS', id, siret: '12345678200010', vatId: 'FR83123456782', address: { country: 'FR' } });
const command = (tenantId: string, sellerId: string, reservationId: string): IssueInvoice => ({
  ...goodsInvoice({
    pool: { poolId: randomUUID(), title: 'Fromages du Jura', unitLabels: new Map([['comte', 'Comté 1 kg']]) },
    seller: seller(sellerId),
    buyer: { name: 'Ann', id: randomUUID(), address: { country: 'FR' } },
    vat: goodsVat({ country: 'FR', vatId: 'FR83123456782' }, standardVatRate),
    reservationId,
    lines: [{ unitId: 'comte', quantity: 2, unitPrice: '18.50' }],
    deposit: '37.00',
    depositTxHash: 'a'.repeat(64),
    deliveryDate: new Date().toISOString().slice(0, 10),
  }),
  invoiceId: randomUUID(),
  tenantId,
  issuer: { kind: 'account', id: sellerId },
  recipient: { kind: 'account', id: randomUUID() },
  now: new Date().toISOString(),
});

const series = async (tenantId: string, sellerId: string) =>
  (await store().readStream(`invoices-${tenantId}-acct-${sellerId}-F`)).map((r) => parseEvent(r).data as EventData<'InvoiceIssued'>);

test('20 issues from 4 processes at once: sequences 1..20 and numbers without a gap or a duplicate, each source once', async () => {
  const tenantId = randomUUID();
  const sellerId = randomUUID();
  const processes = Array.from({ length: 4 }, () => process(15));
  const sources = Array.from({ length: 20 }, () => randomUUID());
  conflicts.count = 0;
  const outcomes = await Promise.all(sources.map((r, k) => issueInvoice(processes[k % 4]!, command(tenantId, sellerId, r), systemMetadata('spec', tenantId, new Date().toISOString()))));
  assert.ok(outcomes.every((o) => o.issued));
  assert.ok(conflicts.count > 0, 'the processes did race for numbers (appends refused on a moved head, then retried)');

  const issued = await series(tenantId, sellerId);
  const year = new Date().toISOString().slice(0, 4);
  assert.equal(issued.map((e) => e.sequence), Array.from({ length: 20 }, (_, k) => k + 1));
  assert.equal(issued.map((e) => e.document.number), Array.from({ length: 20 }, (_, k) => `F-${year}-${String(k + 1).padStart(6, '0')}`));
  assert.equal(new Set(issued.map((e) => e.sourceKey)).size, 20);
  assert.equal(new Set(outcomes.map((o) => o.invoice.number)).size, 20, 'each caller got its own number back');
  for (let k = 1; k < issued.length; k++) assert.ok(issued[k]!.document.issueDate >= issued[k - 1]!.document.issueDate, 'chronological');
});

test('one source issued twice at once from two processes (a replayed job) and once more later: one invoice, every caller told its number', async () => {
  const tenantId = randomUUID();
  const sellerId = randomUUID();
  const reservationId = randomUUID();
  const [a, b] = [process(10), process(10)];
  const meta = () => systemMetadata('spec', tenantId, new Date().toISOString());
  const [first, second] = await Promise.all([issueInvoice(a, command(tenantId, sellerId, reservationId), meta()), issueInvoice(b, command(tenantId, sellerId, reservationId), meta())]);
  const again = await issueInvoice(process(0), command(tenantId, sellerId, reservationId), meta());
  assert.equal([first.issued, second.issued].sort(), [false, true]);
  assert.is(again.issued, false);
  assert.is(first.invoice.invoiceId, second.invoice.invoiceId);
  assert.is(again.invoice.number, first.invoice.number);
  assert.is((await series(tenantId, sellerId)).length, 1);
});

test.run();
