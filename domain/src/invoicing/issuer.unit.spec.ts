import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { IllegalStateError } from '../errors';
import { deciderSpec } from '../testing/decider';
import { goodsCreditNote, goodsInvoice } from './builders';
import { computeInvoice } from './compute';
import { goods, item, R1, R2, SELLER_ID, SETTLE_TX, TENANT_ID, BUYER_ID } from './fixtures.testing';
import { decideIssue, evolveSeries, initialSeries, invoiceNumber, invoiceStream, type InvoiceSeries, type IssueInvoice } from './issuer';
import { parseAmount } from '../money';

const test = suite('InvoiceIssuer: gapless, chronological, once per source');

const spec = deciderSpec<InvoiceSeries, IssueInvoice, Extract<DomainEvent, { type: 'InvoiceIssued' }>>({
  initial: initialSeries,
  evolve: (s, e) => (e.type === 'InvoiceIssued' ? evolveSeries(s, e) : s),
  decide: (c, s) => decideIssue(s, c),
});

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const seller = { kind: 'account' as const, id: SELLER_ID };
const buyer = { kind: 'account' as const, id: BUYER_ID };

const issueGoods = (n: number, reservationId: string, now: string): IssueInvoice => ({
  ...goodsInvoice(goods(undefined, { reservationId })),
  invoiceId: id(n),
  tenantId: TENANT_ID,
  issuer: seller,
  recipient: buyer,
  now,
});

/** The event the decider would have written for `command` at `sequence` on `issueDate`: what a given history holds. */
const issued = (command: IssueInvoice, sequence: number, issueDate: string): Extract<DomainEvent, { type: 'InvoiceIssued' }> => ({
  type: 'InvoiceIssued',
  data: {
    invoiceId: command.invoiceId,
    tenantId: TENANT_ID,
    issuer: command.issuer,
    recipient: command.recipient,
    kind: command.kind,
    poolId: command.poolId,
    ...(command.reservationId ? { reservationId: command.reservationId } : {}),
    sourceKey: command.sourceKey,
    ...(command.corrects ? { corrects: command.corrects } : {}),
    sequence,
    document: computeInvoice({ ...command.draft, number: invoiceNumber(command.kind, issueDate, sequence), issueDate }),
    issuedAt: command.now,
  },
});

test('given no invoice, when one is issued, then it is number 1 of the series on the day of the command', () => {
  const command = issueGoods(1, R1, '2026-03-03T10:00:00.000Z');
  spec.given().when(command).then([issued(command, 1, '2026-03-03')]);
  assert.is(invoiceNumber('GOODS', '2026-03-03', 1), 'F-2026-000001');
  assert.is(invoiceStream(TENANT_ID, seller, 'GOODS'), `invoices-${TENANT_ID}-acct-${SELLER_ID}-F`);
  assert.is(invoiceStream(TENANT_ID, { kind: 'platform', id: 'platform' }, 'PLATFORM_FEE'), `invoices-${TENANT_ID}-platform-P`);
});

test('given two invoices, when a third source is issued, then it takes sequence 3 (the year is the issue date’s, the sequence runs on)', () => {
  const first = issueGoods(1, R1, '2025-12-31T10:00:00.000Z');
  const second = issueGoods(2, R2, '2025-12-31T11:00:00.000Z');
  const third = { ...issueGoods(3, id(99), '2026-01-02T09:00:00.000Z') };
  const state = spec.given(issued(first, 1, '2025-12-31'), issued(second, 2, '2025-12-31')).when(third).then([issued(third, 3, '2026-01-02')]);
  assert.is(state.bySource.get(`goods:${id(99)}`)?.number, 'F-2026-000003');
});

test('given a source already issued, when it is issued again (a retried job, a replay), then nothing is appended', () => {
  const first = issueGoods(1, R1, '2026-03-03T10:00:00.000Z');
  spec.given(issued(first, 1, '2026-03-03')).when({ ...first, invoiceId: id(7), now: '2026-03-04T10:00:00.000Z' }).then([]);
});

test('given an invoice dated later than the command’s clock (a skewed clock), when one is issued, then it keeps that date: never before the previous one', () => {
  const first = issueGoods(1, R1, '2026-03-05T10:00:00.000Z');
  const late = issueGoods(2, R2, '2026-03-04T23:59:00.000Z');
  spec.given(issued(first, 1, '2026-03-05')).when(late).then([issued(late, 2, '2026-03-05')]);
});

test('a credit note is its own series (A) and must name the invoice it corrects', () => {
  const note = goodsCreditNote({
    goods: goods(),
    corrects: { invoiceId: id(1), number: 'F-2026-000001', issueDate: '2026-03-03' },
    finalPrices: new Map([['comte', parseAmount('16.00')]]),
    item: item(R1, '37.00', [['SELLER', '31.20'], ['PLATFORM', '0.80'], ['BUYER', '5.00']]),
    settlementTxHash: SETTLE_TX,
    disputeReason: null,
  })!;
  const command: IssueInvoice = { ...note, invoiceId: id(2), tenantId: TENANT_ID, issuer: seller, recipient: buyer, now: '2026-03-03T12:00:00.000Z' };
  spec.given().when(command).then([issued(command, 1, '2026-03-03')]);
  const [event] = decideIssue(initialSeries(), command);
  assert.is(event!.data.document.number, 'A-2026-000001');
  assert.is(event!.data.corrects, id(1));
  const { corrects: _c, ...orphan } = command;
  spec.given().when(orphan).thenThrows(IllegalStateError, 'credit_note_without_invoice');
});

test.run();
