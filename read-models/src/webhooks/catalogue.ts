import type { DomainEvent, DomainEventType, ParsedEvent } from '@cagnotte/event-schemas';
import { sumAmounts, toMinor } from '../reservations/amounts';
import { PUBLIC_EVENT_CATALOGUE, type PublicEventData, type PublicEventType } from './public-types';
import { v1IdOf } from '../pools/v1';
import { acctId, prefixedId, trId } from '../accounts/ids';

export * from './public-types';

/**
 * From an internal event to the public events it gives (0..n): a pure function of the event and of who owns the pool
 * it is about (the projection's memory, rm_public_event_owners). The same event always gives the same drafts, in the
 * same order: a public event's id is its internal event's id and its index among them.
 */

/** Who owns a pool: its tenant and its organiser; and its mode when its creation recorded one (a /v1 key's). */
export interface PoolOwner {
  tenantId: string;
  ownerId: string | null;
  /** PoolCreated v4's `livemode`: every public event about the pool carries it (the feed's and the webhooks' mode rule). */
  livemode?: boolean;
  /** The pool's type: a GROUPS pool is a /v1 group-buy, whose events have their group_buy.* twins. Unknown: none. */
  poolType?: 'GROUPS' | 'FUNDING';
}
/** The pools the projection knows, by pool id. */
export type PoolOwners = ReadonlyMap<string, PoolOwner>;

/** An internal event as the catalogue reads it: parsed (upcast), with its stream and revision. */
export type CatalogueEvent = ParsedEvent & { id: string; streamId: string; revision: bigint };

export interface PublicEventDraft<T extends PublicEventType = PublicEventType> {
  type: T;
  tenantId: string;
  subject: string;
  ownerId: string | null;
  data: PublicEventData<T>;
}

/**
 * Internal types with no public event, each with why. The completeness spec fails on a registered type that is in
 * neither this map nor `MAPPED_EVENT_TYPES`: a new internal event has to be decided on.
 */
export const INTERNAL_ONLY: Readonly<Partial<Record<DomainEventType, string>>> = {
  TenantCreated: 'operator provisioning of a tenant (the partner itself): no partner resource',
  TenantSettingsChanged: 'operator configuration of the tenant',
  TenantFeeScheduleSet: 'operator configuration of the tenant (the fee schedule)',
  TenantAuditorGranted: 'access control (who audits the tenant)',
  TenantAuditorRevoked: 'access control (who audits the tenant)',
  TenantVerified: 'operator verification of the tenant (live API keys)',
  TenantVerificationWithdrawn: 'operator verification of the tenant (live API keys)',
  AccountRegistered: 'identity: email, phone and profile of a person',
  PasswordResetCompleted: 'credentials',
  BusinessIdentityCaptured: 'identity: tax and company registration data (DAC7)',
  OrganiserGrantPrepared: 'a payment request handed to the user to sign (nothing happened yet)',
  OrganiserGrantSettled: 'identity and access: accounts are not a public resource until the /v1 accounts API',
  RoleGranted: 'identity and access: accounts are not a public resource until the /v1 accounts API',
  MandateAccepted: 'a legal acceptance record (with the IP address) of a person',
  MandateRevoked: 'a legal acceptance record (with the IP address) of a person',
  PoolCommissionMandateAccepted: 'a legal acceptance record (with the IP address) of the organiser',
  PoolListingPrepared: 'a payment request handed to the organiser to sign (pool.listed follows when paid)',
  MerchantOnboarded: 'catalogue profiles: merchant.* joins with the /v1 merchants resource',
  MerchantProfileUpdated: 'catalogue profiles: merchant.* joins with the /v1 merchants resource',
  MerchantActivated: 'catalogue profiles: merchant.* joins with the /v1 merchants resource',
  MerchantSuspended: 'catalogue profiles: merchant.* joins with the /v1 merchants resource',
  PilotRequested: 'a sales lead: a visitor’s name, email and phone',
  VisitorFirstTouched: 'visitor tracking (attribution)',
  TransferSubmitted: 'a step towards transfer.settled or transfer.failed (the ledger has not answered yet)',
  DealEscrowOpened: 'the deal’s escrow account opened on the ledger for the buyer’s deposit (deal.funded follows when it is paid)',
  DealDisputeWithdrawn: 'always decided with DealAccepted, which gives deal.accepted',
  DealSettlementPrepared: 'transactions handed to the seller to cosign (deal.released or deal.refunded follows when they land)',
};

type Of<T extends DomainEventType> = Extract<DomainEvent, { type: T }>['data'];
type Mapper<T extends DomainEventType> = (data: Of<T>) => Array<Omit<PublicEventDraft, 'tenantId' | 'ownerId'>>;

const one = <P extends PublicEventType>(type: P, subject: string, data: PublicEventData<P>) => [{ type, subject, data } as Omit<PublicEventDraft, 'tenantId' | 'ownerId'>];

/** A payment request's public id (`req_` + its uuid's hex), its subject in the feed. */
const req = (requestId: string) => `req_${requestId.replace(/-/g, '')}`;

const reservationRef = (d: { reservationId: string; poolId: string; buyerId: string }) => ({ reservationId: d.reservationId, poolId: d.poolId, buyerId: d.buyerId });
/** The group_buy.* twins name the pool and the reservation by their /v1 ids too (`gb_`, `ord_`, `acct_`). */
const gbRef = (poolId: string) => ({ groupBuy: v1IdOf('gb', poolId), poolId });
const orderRef = (d: { reservationId: string; poolId: string; buyerId: string }) => ({
  ...gbRef(d.poolId),
  order: v1IdOf('ord', d.reservationId),
  reservationId: d.reservationId,
  buyer: v1IdOf('acct', d.buyerId),
});

/** Each mapped internal type and what it gives. Every field of `data` is named here (an allowlist). */
const MAPPERS: { [T in DomainEventType]?: Mapper<T> } = {
  PoolCreated: (d) => [
    ...one('pool.created', d.poolId, {
      poolId: d.poolId,
      type: d.type,
      status: 'DRAFT',
      organiserId: d.organiserId,
      title: d.title,
      currency: d.currency,
      marketplaceVisibility: d.marketplaceVisibility,
      targetAmount: d.targetAmount,
      deadline: d.deadline,
      createdAt: d.createdAt,
    }),
    ...one('group_buy.created', d.poolId, {
      ...gbRef(d.poolId),
      status: 'draft',
      organiser: v1IdOf('acct', d.organiserId),
      title: d.title,
      currency: d.currency,
      closesAt: d.deadline,
      created: d.createdAt,
    }),
  ],
  PoolDraftUpdated: (d) => one('pool.updated', d.poolId, { poolId: d.poolId, fields: Object.keys(d.changes).sort(), updatedAt: d.updatedAt }),
  PoolCountryChanged: (d) => one('pool.updated', d.poolId, { poolId: d.poolId, fields: ['country'], updatedAt: d.changedAt }),
  PoolPublished: (d) => [
    ...one('pool.published', d.poolId, { poolId: d.poolId, status: 'OPEN', publishedAt: d.publishedAt }),
    ...one('group_buy.published', d.poolId, { ...gbRef(d.poolId), status: 'open', publishedAt: d.publishedAt }),
  ],
  PoolClosed: (d) => [
    ...one('pool.closed', d.poolId, {
      poolId: d.poolId,
      status: d.outcome === 'SUCCEEDED' ? 'LOCKED' : 'FAILED',
      outcome: d.outcome,
      reason: d.reason,
      paidUnits: d.paidUnits,
      paidAmount: d.paidAmount,
      finalPrices: d.finalPrices.map((p) => ({ unitId: p.unitId, price: p.price })),
      releaseAfter: d.release.after,
      closedAt: d.closedAt,
    }),
    ...one('group_buy.closed', d.poolId, {
      ...gbRef(d.poolId),
      status: d.outcome === 'SUCCEEDED' ? 'locked' : 'failed',
      paidUnits: d.paidUnits,
      paidAmount: d.paidAmount,
      finalPrices: d.finalPrices.map((p) => ({ itemId: p.unitId, unitAmount: p.price })),
      closedAt: d.closedAt,
    }),
  ],
  PoolCancelled: (d) => [
    ...one('pool.cancelled', d.poolId, { poolId: d.poolId, status: 'CANCELLED', reason: d.reason, cancelledAt: d.cancelledAt }),
    ...one('group_buy.cancelled', d.poolId, { ...gbRef(d.poolId), status: 'cancelled', reason: d.reason, cancelledAt: d.cancelledAt }),
  ],
  PoolDelivered: (d) => one('pool.delivered', d.poolId, { poolId: d.poolId, inspectionEndsAt: d.inspectionEndsAt, deliveredAt: d.deliveredAt }),
  PoolSettled: (d) => [
    ...one('pool.settled', d.poolId, { poolId: d.poolId, settlementId: d.settlementId, released: d.released, refunded: d.refunded, settledAt: d.settledAt }),
    ...one('group_buy.settled', d.poolId, { ...gbRef(d.poolId), released: d.released, refunded: d.refunded, settledAt: d.settledAt }),
  ],
  PoolArchived: (d) => one('pool.archived', d.poolId, { poolId: d.poolId, archivedAt: d.archivedAt }),
  PoolUnarchived: (d) => one('pool.unarchived', d.poolId, { poolId: d.poolId, unarchivedAt: d.unarchivedAt }),
  PoolVisibilityChanged: (d) => one('pool.visibility_changed', d.poolId, { poolId: d.poolId, from: d.from, to: d.to, changedAt: d.changedAt }),
  PoolListed: (d) => one('pool.listed', d.poolId, { poolId: d.poolId, listingId: d.listingId, tier: d.tier, from: d.from, fee: d.amount, listedAt: d.listedAt }),
  PoolListingFeeRefunded: (d) =>
    one('pool.listing_fee_refunded', d.poolId, { poolId: d.poolId, listingId: d.listingId, amount: d.amount, txHash: d.txHash, refundedAt: d.refundedAt }),
  PoolEscrowOpened: (d) => one('escrow.opened', d.poolId, { poolId: d.poolId, accountId: d.accountId, reclaimAfter: d.reclaimAfter, openedAt: d.openedAt }),

  ReservationPlaced: (d) => [
    ...one('reservation.placed', d.reservationId, {
      ...reservationRef(d),
      status: 'PENDING',
      lines: d.lines.map((l) => ({ unitId: l.unitId, quantity: l.quantity, unitPrice: l.unitPrice })),
      pledge: d.pledge,
      amount: d.amount,
      depositFee: d.depositFee ?? '0.00',
      currency: 'EUR',
      relaisId: d.relaisId,
      expiresAt: d.expiresAt,
      placedAt: d.placedAt,
    }),
    ...one('group_buy.order_placed', d.reservationId, {
      ...orderRef(d),
      status: 'pending',
      items: d.lines.map((l) => ({ itemId: l.unitId, quantity: l.quantity, unitAmount: l.unitPrice })),
      amount: d.amount,
      currency: 'EUR',
      expiresAt: d.expiresAt,
      created: d.placedAt,
    }),
  ],
  ReservationSigned: (d) =>
    one('reservation.signed', d.reservationId, {
      ...reservationRef(d),
      terms: { version: d.terms.version, hash: d.terms.hash },
      escrowAccount: d.escrowAccount,
      reclaimAfter: d.reclaimAfter,
      signedAt: d.signedAt,
    }),
  ReservationPaid: (d) => [
    ...one('reservation.paid', d.reservationId, { ...reservationRef(d), status: 'PAID', amount: d.amount, txHash: d.txHash, ledger: d.ledger, balanceId: d.balanceId, paidAt: d.paidAt }),
    ...one('group_buy.order_paid', d.reservationId, { ...orderRef(d), status: 'paid', amount: d.amount, txHash: d.txHash, paidAt: d.paidAt }),
  ],
  ReservationExpired: (d) => one('reservation.expired', d.reservationId, { ...reservationRef(d), status: 'EXPIRED', expiredAt: d.expiredAt }),
  ReservationCancelled: (d) => one('reservation.cancelled', d.reservationId, { ...reservationRef(d), status: 'CANCELLED', cancelledAt: d.cancelledAt }),
  ReservationLatePaymentReceived: (d) =>
    one('reservation.late_payment_received', d.reservationId, {
      ...reservationRef(d),
      amount: d.amount,
      txHash: d.txHash,
      balanceId: d.balanceId,
      reclaimAfter: d.reclaimAfter,
      receivedAt: d.receivedAt,
    }),
  ReservationReceiptConfirmed: (d) => one('reservation.accepted', d.reservationId, { ...reservationRef(d), acceptance: { by: 'BUYER', at: d.confirmedAt } }),
  ReservationAutoAccepted: (d) => one('reservation.accepted', d.reservationId, { ...reservationRef(d), acceptance: { by: 'AUTO', at: d.acceptedAt } }),
  ReservationSettled: (d) => [
    ...one('reservation.settled', d.reservationId, {
      ...reservationRef(d),
      settlementId: d.settlementId,
      kind: d.kind,
      path: d.path,
      released: d.released,
      refunded: d.refunded,
      txHash: d.txHash,
      settledAt: d.settledAt,
    }),
    // What went back to the buyer: its own type, so a partner refunding in its books subscribes to refunds alone.
    ...(toMinor(d.refunded) === 0n
      ? []
      : one('refund.settled', d.reservationId, {
          poolId: d.poolId,
          refundOf: d.kind,
          reservationId: d.reservationId,
          buyerId: d.buyerId,
          operationId: null,
          settlementId: d.settlementId,
          amount: d.refunded,
          txHash: d.txHash,
          settledAt: d.settledAt,
        })),
  ],

  DisputeOpened: (d) =>
    one('dispute.opened', d.disputeId, {
      disputeId: d.disputeId,
      reservationId: d.reservationId,
      poolId: d.poolId,
      buyerId: d.buyerId,
      status: 'OPEN',
      reason: d.reason,
      amount: d.amount,
      respondBy: d.respondBy,
      openedAt: d.openedAt,
    }),
  DisputeContested: (d) =>
    one('dispute.contested', d.disputeId, { disputeId: d.disputeId, reservationId: d.reservationId, poolId: d.poolId, status: 'CONTESTED', lapsesAt: d.lapsesAt, contestedAt: d.contestedAt }),
  DisputeResolved: (d) =>
    one('dispute.resolved', d.disputeId, { disputeId: d.disputeId, reservationId: d.reservationId, poolId: d.poolId, status: d.outcome, refund: d.refund, resolvedAt: d.resolvedAt }),

  EscrowSettlementPrepared: (d) =>
    one('settlement.prepared', d.settlementId, {
      settlementId: d.settlementId,
      poolId: d.poolId,
      kind: d.kind,
      final: d.final,
      items: d.items.length,
      amount: sumAmounts(d.items.map((i) => i.amount)),
      rounds: d.rounds.length,
      releaseUntil: d.releaseUntil,
      recoveryFrom: d.recoveryFrom,
      recoveryUntil: d.recoveryUntil,
      supersedes: d.supersedes,
      preparedAt: d.preparedAt,
    }),
  EscrowRoundSettled: (d) =>
    one('release.settled', d.settlementId, {
      settlementId: d.settlementId,
      poolId: d.poolId,
      round: d.round,
      path: d.path,
      txHash: d.txHash,
      ledger: d.ledger,
      merged: d.merged,
      settledAt: d.settledAt,
    }),
  EscrowPayoutSettled: (d) =>
    one('payout.settled', d.settlementId, {
      settlementId: d.settlementId,
      poolId: d.poolId,
      round: d.round,
      role: d.role,
      // A buyer's account is theirs: their refund is told per reservation (refund.settled), without it.
      destination: d.role === 'BUYER' ? null : d.destination,
      amount: d.amount,
      txHash: d.txHash,
      settledAt: d.settledAt,
    }),
  EscrowStrayPaymentRecorded: (d) =>
    one('stray_payment.received', d.operationId, { poolId: d.poolId, operationId: d.operationId, amount: d.amount, txHash: d.txHash, receivedAt: d.receivedAt }),
  EscrowStrayPaymentReturned: (d) =>
    one('refund.settled', d.operationId, {
      poolId: d.poolId,
      refundOf: 'STRAY_PAYMENT',
      reservationId: null,
      buyerId: null,
      operationId: d.operationId,
      settlementId: d.settlementId,
      amount: d.amount,
      txHash: d.txHash,
      settledAt: d.returnedAt,
    }),

  DealCreated: (d) =>
    one('deal.created', d.dealId, {
      deal: prefixedId('deal', d.dealId),
      livemode: d.livemode,
      status: 'created',
      buyer: prefixedId('acct', d.buyerId),
      seller: prefixedId('acct', d.sellerId),
      broker: d.brokerId ? prefixedId('acct', d.brokerId) : null,
      amount: d.amount,
      currency: d.currency,
      releaseRule: d.releaseRule,
      createdAt: d.createdAt,
    }),
  DealFunded: (d) => one('deal.funded', d.dealId, { deal: prefixedId('deal', d.dealId), livemode: d.livemode, status: 'funded', amount: d.amount, txHash: d.txHash, fundedAt: d.fundedAt }),
  DealDelivered: (d) => one('deal.delivered', d.dealId, { deal: prefixedId('deal', d.dealId), livemode: d.livemode, status: 'delivered', inspectionEndsAt: d.inspectionEndsAt, deliveredAt: d.deliveredAt }),
  DealAccepted: (d) => one('deal.accepted', d.dealId, { deal: prefixedId('deal', d.dealId), livemode: d.livemode, status: 'accepted', by: d.by, acceptedAt: d.acceptedAt }),
  DealDisputed: (d) => one('deal.disputed', d.dealId, { deal: prefixedId('deal', d.dealId), livemode: d.livemode, status: 'disputed', respondBy: d.respondBy, disputedAt: d.disputedAt }),
  DealReleased: (d) =>
    one('deal.released', d.dealId, {
      deal: prefixedId('deal', d.dealId),
      livemode: d.livemode,
      status: 'released',
      txHash: d.txHash,
      payouts: d.payouts.map((p) => ({ role: p.role, account: p.accountId ? prefixedId('acct', p.accountId) : null, amount: p.amount })),
      releasedAt: d.releasedAt,
    }),
  DealRefunded: (d) => one('deal.refunded', d.dealId, { deal: prefixedId('deal', d.dealId), livemode: d.livemode, status: 'refunded', path: d.path, amount: d.amount, txHash: d.txHash, refundedAt: d.refundedAt }),
  DealCancelled: (d) => one('deal.cancelled', d.dealId, { deal: prefixedId('deal', d.dealId), livemode: d.livemode, status: 'cancelled', reason: d.reason, cancelledAt: d.cancelledAt }),

  InvoiceIssued: (d) =>
    one('invoice.issued', d.invoiceId, {
      invoiceId: d.invoiceId,
      number: d.document.number,
      kind: d.kind,
      typeCode: d.document.typeCode,
      issueDate: d.document.issueDate,
      issuer: { kind: d.issuer.kind, id: d.issuer.id },
      recipient: { kind: d.recipient.kind, id: d.recipient.id },
      poolId: d.poolId ?? null,
      reservationId: d.reservationId ?? null,
      corrects: d.corrects ?? null,
      grandTotal: d.document.totals.grandTotal,
      duePayable: d.document.totals.duePayable,
      currency: 'EUR',
      issuedAt: d.issuedAt,
    }),

  PaymentRequestCreated: (d) =>
    one('request.created', req(d.requestId), {
      request: req(d.requestId),
      payee: `acct_${d.payeeId.replace(/-/g, '')}`,
      livemode: d.livemode,
      status: 'open',
      currency: 'EUR',
      subtotal: d.subtotal,
      tax: d.tax,
      amountDue: d.amountDue,
      dueAt: d.dueAt,
      createdAt: d.createdAt,
    }),
  PaymentRequestPaymentRecorded: (d) =>
    one('request.payment_received', req(d.requestId), { request: req(d.requestId), livemode: d.livemode, txHash: d.txHash, amount: d.amount, amountPaid: d.amountPaid, late: d.late, receivedAt: d.recordedAt }),
  PaymentRequestPaid: (d) => one('request.paid', req(d.requestId), { request: req(d.requestId), livemode: d.livemode, status: 'paid', amountPaid: d.amountPaid, amountOverpaid: d.amountOverpaid, paidAt: d.paidAt }),
  PaymentRequestExpired: (d) => one('request.expired', req(d.requestId), { request: req(d.requestId), livemode: d.livemode, status: 'expired', amountPaid: d.amountPaid, expiredAt: d.expiredAt }),
  PaymentRequestVoided: (d) => one('request.voided', req(d.requestId), { request: req(d.requestId), livemode: d.livemode, status: 'void', amountPaid: d.amountPaid, voidedAt: d.voidedAt }),
  AccountCreatedByPartner: (d) =>
    one('account.created', acctId(d.userId), { accountId: acctId(d.userId), livemode: d.livemode, createdVia: d.createdVia === null ? null : prefixedId('key', d.createdVia), createdAt: d.createdAt }),
  AccountProfileUpdated: (d) =>
    one('account.updated', acctId(d.userId), {
      accountId: acctId(d.userId),
      ...(d.livemode !== undefined ? { livemode: d.livemode } : {}),
      fields: [...(d.displayName !== undefined ? (['name'] as const) : []), ...(d.metadata !== undefined ? (['metadata'] as const) : [])],
      updatedAt: d.updatedAt,
    }),
  // A partner's account's wallet (its event carries the account's mode); a signup's own link stays internal (credentials).
  LedgerAccountLinked: (d) =>
    d.livemode === undefined
      ? []
      : one('account.wallet_linked', acctId(d.userId), { accountId: acctId(d.userId), livemode: d.livemode, wallet: d.ledgerAccount, linkedAt: d.linkedAt }),
  TransferCreated: (d) =>
    one('transfer.created', trId(d.transferId), {
      transferId: trId(d.transferId),
      livemode: d.livemode,
      status: 'requires_signature',
      from: acctId(d.fromUserId),
      to: d.to.kind === 'account' ? acctId(d.to.userId) : d.to.wallet,
      amount: d.amount,
      currency: 'EUR',
      expiresAt: d.expiresAt,
      createdAt: d.createdAt,
    }),
  TransferSettled: (d) =>
    one('transfer.settled', trId(d.transferId), { transferId: trId(d.transferId), livemode: d.livemode, status: 'settled', txHash: d.txHash, ledger: d.ledger, settledAt: d.settledAt }),
  TransferFailed: (d) =>
    one('transfer.failed', trId(d.transferId), {
      transferId: trId(d.transferId),
      livemode: d.livemode,
      status: 'failed',
      txHash: d.txHash,
      failureCode: d.failureCode,
      failedAt: d.failedAt,
    }),
  PoolShipmentCreated: (d) =>
    one('relais.shipment.updated', d.shipmentId, {
      poolId: d.poolId,
      shipmentId: d.shipmentId,
      trackingNumber: d.trackingNumber,
      network: d.network,
      pointId: d.pointId,
      status: 'label_created',
      previous: null,
      occurredAt: d.createdAt,
    }),
  PoolShipmentStatusChanged: (d) =>
    one('relais.shipment.updated', d.shipmentId, {
      poolId: d.poolId,
      shipmentId: d.shipmentId,
      trackingNumber: d.trackingNumber,
      network: d.network,
      status: d.status,
      previous: d.previous,
      occurredAt: d.occurredAt,
    }),
  RelaisParcelCollected: (d) =>
    one('relais.parcel.collected', d.reservationId, { ...reservationRef(d), shipmentId: d.shipmentId, pointId: d.pointId, hostId: d.hostId, collectedAt: d.collectedAt }),
  TransferCancelled: (d) => one('transfer.canceled', trId(d.transferId), { transferId: trId(d.transferId), livemode: d.livemode, status: 'canceled', canceledAt: d.cancelledAt }),
};

/** The internal types that give public events. */
export const MAPPED_EVENT_TYPES: ReadonlySet<string> = new Set(Object.keys(MAPPERS));

/** Whether the projection reads this internal type at all. */
export const hasPublicEvents = (type: string): boolean => MAPPED_EVENT_TYPES.has(type);

/** The pool (or the deal) an internal event is about, if any: its owner is that resource's. */
export const poolIdOf = (e: { data: unknown }): string | null => {
  const data = e.data as { poolId?: unknown; dealId?: unknown } | null;
  const id = data?.poolId ?? data?.dealId;
  return typeof id === 'string' ? id : null;
};

/** The payment request an internal event is about, if any (its owner is that request's payee): its own events, and its invoice. */
export const requestIdOf = (e: { type: string; data: unknown }): string | null => {
  if (e.type === 'InvoiceIssued') {
    const m = /^request:([0-9a-f-]{36})$/.exec((e.data as { sourceKey?: string }).sourceKey ?? '');
    return m ? m[1]! : null;
  }
  if (!e.type.startsWith('PaymentRequest')) return null;
  const requestId = (e.data as { requestId?: unknown } | null)?.requestId;
  return typeof requestId === 'string' ? requestId : null;
};

/** The resource whose owner an event's public events carry: its pool, else its payment request. */
export const ownerKeyOf = (e: { type: string; data: unknown }): string | null => poolIdOf(e) ?? requestIdOf(e);

/**
 * What the projection remembers of an event: a created pool's tenant, organiser, type and mode (PoolCreated v4), a
 * created payment request's tenant and payee, a created deal's tenant and creator (null for any other event).
 */
export const ownerRecordOf = (event: CatalogueEvent): ({ resourceId: string } & PoolOwner) | null => {
  if (event.type === 'PoolCreated') {
    return {
      resourceId: event.data.poolId,
      tenantId: event.data.tenantId,
      ownerId: event.data.organiserId,
      poolType: event.data.type,
      ...(event.data.livemode !== undefined ? { livemode: event.data.livemode } : {}),
    };
  }
  if (event.type === 'PaymentRequestCreated') return { resourceId: event.data.requestId, tenantId: event.data.tenantId, ownerId: event.data.payeeId };
  if (event.type === 'DealCreated') return { resourceId: event.data.dealId, tenantId: event.data.tenantId, ownerId: event.data.createdBy };
  return null;
};

/** The /v1 accounts' and transfers' events: whose they are is who acted (the organiser a key acts as). */
const ACTOR_OWNED: ReadonlySet<string> = new Set([
  'AccountCreatedByPartner',
  'AccountProfileUpdated',
  'LedgerAccountLinked',
  'TransferCreated',
  'TransferSettled',
  'TransferFailed',
  'TransferCancelled',
]);
const actorOwnerOf = (event: CatalogueEvent): PoolOwner | undefined =>
  ACTOR_OWNED.has(event.type) && event.metadata.tenantId
    ? { tenantId: event.metadata.tenantId, ownerId: event.metadata.actor.kind === 'user' ? event.metadata.actor.id : null }
    : undefined;

/**
 * The public events of one internal event, in order (index 0, 1, …). The owner is the pool's organiser (PoolCreated
 * names them; later events find them in `owners`); the tenant is the pool's, else the event's own. An event whose
 * tenant cannot be told gives nothing (it has no reader).
 */
export const publicEventsOf = (event: CatalogueEvent, owners: PoolOwners): PublicEventDraft[] => {
  const mapper = MAPPERS[event.type] as Mapper<DomainEventType> | undefined;
  if (!mapper) return [];
  const ownerKey = ownerKeyOf(event);
  const owner: PoolOwner | undefined = ownerRecordOf(event) ?? (ownerKey ? owners.get(ownerKey) : undefined) ?? actorOwnerOf(event);
  const tenantId = owner?.tenantId ?? (event.type === 'InvoiceIssued' ? event.data.tenantId : null) ?? event.metadata.tenantId;
  if (!tenantId) return [];
  // The group_buy.* twins are of GROUPS pools only (a group-buy is one): a FUNDING pool, or one whose type the
  // projection does not know (an owner remembered before it kept the type), has its pool.* events alone.
  const drafts = mapper(event.data as Of<DomainEventType>).filter((d) => owner?.poolType === 'GROUPS' || !d.type.startsWith('group_buy.'));
  return drafts.map((d) => {
    // Every draft's data is parsed by its public schema: a mapper that breaks its published shape fails here, loudly.
    // A pool created in a mode (a /v1 key's) tells it in every event about it: the feed and the webhooks deliver each
    // event in its data's mode (else the deployment's), so a live group-buy's events never reach a test key.
    const withMode = owner?.livemode === undefined ? d.data : { ...d.data, livemode: owner.livemode };
    const data = PUBLIC_EVENT_CATALOGUE[d.type].data.parse(withMode) as PublicEventData<typeof d.type>;
    return { type: d.type, tenantId, subject: d.subject, ownerId: owner?.ownerId ?? null, data };
  });
};
