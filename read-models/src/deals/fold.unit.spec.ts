import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { foldDeal, type DealDoc } from './fold';
import { dealView } from './view';
import { prefixedId, uuidOfPrefixed } from './ids';

const DEAL = 'd0000000-0000-4000-8000-000000000001';
const [BUYER, SELLER] = ['a0000000-0000-4000-8000-00000000000b', 'a0000000-0000-4000-8000-00000000000c'];
const G = (c: string) => `G${c.repeat(55)}`;
const T0 = '2026-03-01T10:00:00.000Z';
const T1 = '2026-03-02T10:00:00.000Z';

const history: DomainEvent[] = [
  {
    type: 'DealCreated',
    data: {
      dealId: DEAL,
      tenantId: 'e0000000-0000-4000-8000-000000000001',
      livemode: false,
      createdBy: BUYER,
      buyerId: BUYER,
      sellerId: SELLER,
      brokerId: null,
      description: null,
      metadata: {},
      items: [{ description: 'Lamp', quantity: 3, unitAmount: '2.5' }],
      amount: '7.50',
      currency: 'EUR',
      split: [{ accountId: SELLER, role: 'seller', bps: 10_000, amount: '7.50' }],
      releaseRule: 'on_delivery',
      inspectionDays: 3,
      disputeResponseDays: 7,
      createdAt: T0,
    },
  },
  { type: 'DealEscrowOpened', data: { dealId: DEAL, livemode: false, accountId: G('E'), cosigner: G('S'), platformSigner: G('P'), threshold: 2, reclaimAfter: '2026-07-01T10:00:00.000Z', setupTxHash: null, openedAt: T0 } },
  { type: 'DealFunded', data: { dealId: DEAL, livemode: false, from: G('B'), amount: '7.50', txHash: 'ab'.repeat(32), ledger: 3, balanceId: `00000000${'cd'.repeat(32)}`, via: 'txHash', fundedAt: T1 } },
  { type: 'DealDelivered', data: { dealId: DEAL, livemode: false, note: null, inspectionEndsAt: '2026-03-05T10:00:00.000Z', deliveredAt: T1 } },
];

const foldAll = (events: DomainEvent[], from: DealDoc | null = null, firstRevision = 0n) =>
  events.reduce<DealDoc | null>((doc, e, i) => foldDeal(doc, e, firstRevision + BigInt(i)), from);

const test = suite('deals read model: the fold and the view');

test('the document follows the stream; replaying it (twice) changes nothing', () => {
  const once = foldAll(history)!;
  assert.is(once.status, 'delivered');
  assert.equal(once.transitions, { created: T0, funded: T1, delivered: T1, accepted: null, disputed: null, released: null, refunded: null, cancelled: null });
  assert.is(foldAll(history, once), once, 'every event at or below its revision is skipped');
  assert.equal(foldAll(history, foldAll(history, once)), once);
});

test('the view: prefixed ids, each item’s amount, the escrow and funding', () => {
  const v = dealView(foldAll(history)!);
  assert.is(v.id, prefixedId('deal', DEAL));
  assert.is(uuidOfPrefixed('deal', v.id), DEAL);
  assert.is(v.buyer, prefixedId('acct', BUYER));
  assert.equal(v.items, [{ description: 'Lamp', quantity: 3, unitAmount: '2.5', amount: '7.50' }]);
  assert.equal(v.escrow, { account: G('E'), cosigner: G('S'), reclaimAfter: '2026-07-01T10:00:00.000Z' });
  assert.is(v.status, 'delivered');
  assert.is(uuidOfPrefixed('deal', 'deal_xyz'), null);
});

test.run();
