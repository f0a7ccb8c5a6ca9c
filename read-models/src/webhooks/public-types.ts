import { z } from 'zod';
import { DisputeReason, InvoiceKind, InvoiceSubject, ListingTier, MarketplaceVisibility, PayoutRole, PoolStatus, PoolType } from '@cagnotte/event-schemas';

/*
 * The public event catalogue: the partner-facing vocabulary (docs/webhooks.md), derived from the internal events and
 * never the internal events as stored. A published type is never removed and its `data` only grows by optional
 * properties (docs/public-events.json is the published snapshot; public-events-compat.unit.spec.ts guards it).
 * `data` is a thin view: ids, statuses, amounts as decimal strings, times as ISO strings. Never a secret, a reclaim or
 * signed XDR, a password, an email or phone, a buyer's name, or a buyer's ledger account.
 */

/** The version of the envelope and of every `data` shape: a breaking change would be a new version. */
export const API_VERSION = '2026-11-01';

const Uuid = z.string().uuid();
const Amount = z.string().describe('Decimal string (at most 7 decimals), never a float');
const Time = z.string().describe('ISO 8601 date-time');
const TxHash = z.string().describe('The ledger transaction (hex): the payment proof');

const poolRef = { poolId: Uuid };
const reservationRef = { reservationId: Uuid, poolId: Uuid, buyerId: Uuid.describe('The buyer (an account id of the tenant); never their name or contact') };
const disputeRef = { disputeId: Uuid, reservationId: Uuid, poolId: Uuid };
const settlementRef = { settlementId: Uuid, poolId: Uuid };

const PoolCreatedData = z.object({
  ...poolRef,
  type: PoolType,
  status: z.literal('DRAFT'),
  organiserId: Uuid,
  title: z.string(),
  currency: z.literal('EUR'),
  marketplaceVisibility: MarketplaceVisibility,
  targetAmount: Amount.nullable(),
  deadline: Time.nullable(),
  createdAt: Time,
});
const PoolUpdatedData = z.object({
  ...poolRef,
  fields: z.array(z.string()).describe('The top-level fields that changed (read the pool for their values)'),
  updatedAt: Time,
});
const PoolPublishedData = z.object({ ...poolRef, status: z.literal('OPEN'), publishedAt: Time });
const PoolArchivedData = z.object({ ...poolRef, archivedAt: Time });
const PoolUnarchivedData = z.object({ ...poolRef, unarchivedAt: Time });

const PoolClosedData = z.object({
  ...poolRef,
  status: PoolStatus.extract(['LOCKED', 'FAILED']).describe('LOCKED: succeeded, the deposits are held; FAILED: every deposit goes back'),
  outcome: z.enum(['SUCCEEDED', 'FAILED']),
  reason: z.enum(['DEADLINE', 'ORGANISER']),
  paidUnits: z.number().int(),
  paidAmount: Amount,
  finalPrices: z.array(z.object({ unitId: z.string(), price: Amount })),
  releaseAfter: z.enum(['CLOSE', 'RECEIPT']),
  closedAt: Time,
});
const PoolCancelledData = z.object({ ...poolRef, status: z.literal('CANCELLED'), reason: z.string().nullable(), cancelledAt: Time });
const PoolDeliveredData = z.object({ ...poolRef, inspectionEndsAt: Time, deliveredAt: Time });
const PoolSettledData = z.object({
  ...settlementRef,
  released: Amount.describe('Paid out to the seller, the organiser and the platform, over the pool’s whole life'),
  refunded: Amount.describe('Paid back to buyers'),
  settledAt: Time,
});
const PoolVisibilityChangedData = z.object({ ...poolRef, from: MarketplaceVisibility, to: MarketplaceVisibility, changedAt: Time });
const PoolListedData = z.object({ ...poolRef, listingId: Uuid, tier: ListingTier, from: MarketplaceVisibility, fee: Amount, listedAt: Time });
const PoolListingFeeRefundedData = z.object({ ...poolRef, listingId: Uuid, amount: Amount, txHash: TxHash, refundedAt: Time });
const EscrowOpenedData = z.object({
  ...poolRef,
  accountId: z.string().describe('The escrow account (G…): buyers deposit into it'),
  reclaimAfter: Time.describe('From then on each buyer alone can reclaim a deposit still unclaimed'),
  openedAt: Time,
});

const ReservationPlacedData = z.object({
  ...reservationRef,
  status: z.literal('PENDING'),
  lines: z.array(z.object({ unitId: z.string(), quantity: z.number().int(), unitPrice: Amount })),
  pledge: Amount.nullable(),
  amount: Amount.describe('What the buyer pays into escrow: the goods plus `depositFee`'),
  depositFee: Amount,
  currency: z.literal('EUR'),
  relaisId: z.string().nullable(),
  expiresAt: Time,
  placedAt: Time,
});
const ReservationSignedData = z.object({
  ...reservationRef,
  terms: z.object({ version: z.string(), hash: z.string() }),
  escrowAccount: z.string(),
  reclaimAfter: Time,
  signedAt: Time,
});
const ReservationPaidData = z.object({
  ...reservationRef,
  status: z.literal('PAID'),
  amount: Amount,
  txHash: TxHash,
  ledger: z.number().int(),
  balanceId: z.string().describe('The claimable balance holding the deposit'),
  paidAt: Time,
});
const ReservationExpiredData = z.object({ ...reservationRef, status: z.literal('EXPIRED'), expiredAt: Time });
const ReservationCancelledData = z.object({ ...reservationRef, status: z.literal('CANCELLED'), cancelledAt: Time });
const ReservationLatePaymentData = z.object({
  ...reservationRef,
  amount: Amount,
  txHash: TxHash,
  balanceId: z.string(),
  reclaimAfter: Time,
  receivedAt: Time.describe('A deposit for a reservation that no longer held: owed back to the buyer'),
});
const ReservationAcceptedData = z.object({
  ...reservationRef,
  acceptance: z.object({ by: z.enum(['BUYER', 'AUTO']).describe('BUYER: receipt confirmed; AUTO: the inspection period passed'), at: Time }),
});
const ReservationSettledData = z.object({
  ...reservationRef,
  settlementId: Uuid,
  kind: z.enum(['DEPOSIT', 'LATE_DEPOSIT']),
  path: z.enum(['RELEASE', 'RECOVERY']),
  released: Amount,
  refunded: Amount,
  txHash: TxHash,
  settledAt: Time,
});

const DisputeOpenedData = z.object({
  ...disputeRef,
  buyerId: Uuid,
  status: z.literal('OPEN'),
  reason: DisputeReason,
  amount: Amount.describe('What the dispute holds'),
  respondBy: Time,
  openedAt: Time,
});
const DisputeContestedData = z.object({ ...disputeRef, status: z.literal('CONTESTED'), lapsesAt: Time, contestedAt: Time });
const DisputeResolvedData = z.object({
  ...disputeRef,
  status: z.enum(['REFUNDED', 'WITHDRAWN', 'LAPSED']),
  refund: Amount,
  resolvedAt: Time,
});

const SettlementPreparedData = z.object({
  ...settlementRef,
  kind: z.enum(['RELEASE', 'REFUND']),
  final: z.boolean().describe('The escrow is merged back at its end'),
  items: z.number().int().describe('Deposits it claims'),
  amount: Amount,
  rounds: z.number().int(),
  releaseUntil: Time.describe('The organiser cosigns the releases until then'),
  recoveryFrom: Time,
  recoveryUntil: Time,
  supersedes: Uuid.nullable(),
  preparedAt: Time,
});
const ReleaseSettledData = z.object({
  ...settlementRef,
  round: z.number().int(),
  path: z.enum(['RELEASE', 'RECOVERY']).describe('RELEASE: cosigned by the organiser; RECOVERY: every deposit of the round back to its buyer'),
  txHash: TxHash,
  ledger: z.number().int(),
  merged: z.boolean().describe('The escrow account was merged back by this transaction'),
  settledAt: Time,
});
const PayoutSettledData = z.object({
  ...settlementRef,
  round: z.number().int(),
  role: PayoutRole,
  destination: z.string().nullable().describe('The account paid (G…); null for a BUYER (each buyer’s refund is a refund.settled)'),
  amount: Amount,
  txHash: TxHash,
  settledAt: Time,
});
const RefundSettledData = z.object({
  poolId: Uuid,
  refundOf: z.enum(['DEPOSIT', 'LATE_DEPOSIT', 'STRAY_PAYMENT']).describe('A reservation’s deposit, a deposit that came too late, or money paid straight into the escrow'),
  reservationId: Uuid.nullable(),
  buyerId: Uuid.nullable(),
  operationId: z.string().nullable().describe('STRAY_PAYMENT: the ledger operation that paid it in'),
  settlementId: Uuid,
  amount: Amount,
  txHash: TxHash,
  settledAt: Time,
});
const StrayPaymentReceivedData = z.object({ ...poolRef, operationId: z.string(), amount: Amount, txHash: TxHash, receivedAt: Time });

/** Who issues or receives it (not strict, unlike the internal schema: a later version may add a property). */
const Party = z.object(InvoiceSubject.shape);
const InvoiceIssuedData = z.object({
  invoiceId: Uuid,
  number: z.string(),
  kind: InvoiceKind,
  typeCode: z.enum(['380', '381']).describe('380 invoice, 381 credit note'),
  issueDate: z.string(),
  issuer: Party,
  recipient: Party,
  poolId: Uuid.nullable(),
  reservationId: Uuid.nullable(),
  corrects: Uuid.nullable(),
  grandTotal: z.string(),
  duePayable: z.string(),
  currency: z.literal('EUR'),
  issuedAt: Time,
});

const dealRef = { deal: z.string().describe('`deal_…`: the deal'), livemode: z.boolean().describe('The deal’s mode: the event is of that mode') };
const DealStatus = z.enum(['created', 'funded', 'delivered', 'accepted', 'disputed', 'released', 'refunded', 'cancelled']);
const DealAccount = z.string().describe('`acct_…`: an account of the tenant');
const DealCreatedData = z.object({
  ...dealRef,
  status: z.literal('created'),
  buyer: DealAccount,
  seller: DealAccount,
  broker: DealAccount.nullable(),
  amount: Amount,
  currency: z.literal('EUR'),
  releaseRule: z.union([z.enum(['on_delivery', 'on_acceptance']), z.object({ at: Time })]),
  createdAt: Time,
});
const DealFundedData = z.object({ ...dealRef, status: DealStatus, amount: Amount, txHash: TxHash, fundedAt: Time });
const DealDeliveredData = z.object({ ...dealRef, status: DealStatus, inspectionEndsAt: Time, deliveredAt: Time });
const DealAcceptedData = z.object({ ...dealRef, status: z.literal('accepted'), by: z.enum(['BUYER', 'AUTO']), acceptedAt: Time });
const DealDisputedData = z.object({ ...dealRef, status: z.literal('disputed'), respondBy: Time, disputedAt: Time });
const DealReleasedData = z.object({
  ...dealRef,
  status: z.literal('released'),
  txHash: TxHash,
  payouts: z.array(z.object({ role: z.enum(['seller', 'broker', 'payee', 'buyer', 'platform']), account: DealAccount.nullable(), amount: Amount })),
  releasedAt: Time,
});
const DealRefundedData = z.object({ ...dealRef, status: z.literal('refunded'), path: z.enum(['RELEASE', 'RECOVERY']), amount: Amount, txHash: TxHash, refundedAt: Time });
const DealCancelledData = z.object({ ...dealRef, status: z.literal('cancelled'), reason: z.string().nullable(), cancelledAt: Time });

const requestRef = { request: z.string().describe('`req_…`: the payment request'), livemode: z.boolean() };
const RequestCreatedData = z.object({
  ...requestRef,
  payee: z.string().describe('`acct_…`: the account paid'),
  status: z.literal('open'),
  currency: z.literal('EUR'),
  subtotal: Amount,
  tax: Amount,
  amountDue: Amount,
  dueAt: Time,
  createdAt: Time,
});
const RequestPaymentReceivedData = z.object({
  ...requestRef,
  txHash: TxHash,
  amount: Amount,
  amountPaid: Amount.describe('What the payments that count add up to now'),
  late: z.boolean().describe('Came after the request expired or was voided: it pays nothing'),
  receivedAt: Time,
});
const RequestPaidData = z.object({ ...requestRef, status: z.literal('paid'), amountPaid: Amount, amountOverpaid: Amount, paidAt: Time });
const RequestExpiredData = z.object({ ...requestRef, status: z.literal('expired'), amountPaid: Amount, expiredAt: Time });
const RequestVoidedData = z.object({ ...requestRef, status: z.literal('void'), amountPaid: Amount, voidedAt: Time });

const AccountRef = z.string().describe('`acct_…`: an account of the tenant');
const AccountCreatedData = z.object({
  accountId: AccountRef,
  livemode: z.boolean(),
  createdVia: z.string().nullable().describe('`key_…`: the API key that created it; null for a session'),
  createdAt: Time,
});
const AccountMode = z.boolean().optional().describe('The account’s mode; absent for an account registered through /api (the deployment’s)');
const AccountUpdatedData = z.object({
  accountId: AccountRef,
  livemode: AccountMode,
  fields: z.array(z.enum(['name', 'metadata'])).describe('What changed (read the account for the values)'),
  updatedAt: Time,
});
const AccountWalletLinkedData = z.object({
  accountId: AccountRef,
  livemode: z.boolean(),
  wallet: z.string().describe('The Stellar account (G…) the holder proved they control'),
  linkedAt: Time,
});
const transferRef = { transferId: z.string().describe('`tr_…`'), livemode: z.boolean() };
const TransferCreatedData = z.object({
  ...transferRef,
  status: z.literal('requires_signature'),
  from: AccountRef,
  to: z.string().describe('`acct_…`, or a Stellar address (G…)'),
  amount: Amount,
  currency: z.literal('EUR'),
  expiresAt: Time,
  createdAt: Time,
});
const TransferSettledData = z.object({ ...transferRef, status: z.literal('settled'), txHash: TxHash, ledger: z.number().int(), settledAt: Time });
const TransferFailedData = z.object({
  ...transferRef,
  status: z.literal('failed'),
  txHash: z.string(),
  failureCode: z.string().describe('The ledger’s result code: `op_underfunded`, `op_no_trust`, `tx_bad_seq`…'),
  failedAt: Time,
});
const TransferCanceledData = z.object({ ...transferRef, status: z.literal('canceled'), canceledAt: Time });

// The /v1 group-buys' events (docs/v1/group-buys.md): a group-buy is a pool, so each is the twin of a pool.* or
// reservation.* event of the same internal event, in /v1 vocabulary (`gb_`, `ord_`, `acct_` ids, lowercase statuses).
const gbRef = { groupBuy: z.string().describe('`gb_…`: the group-buy (GET /v1/group-buys/{id})'), poolId: Uuid.describe('The same pool on /api') };
const orderRef = {
  ...gbRef,
  order: z.string().describe('`ord_…`: the order'),
  reservationId: Uuid.describe('The same reservation on /api'),
  buyer: z.string().describe('`acct_…`: the buyer’s account of the tenant; never their name or contact'),
};
const GroupBuyCreatedData = z.object({
  ...gbRef,
  status: z.literal('draft'),
  organiser: z.string().describe('`acct_…`'),
  title: z.string(),
  currency: z.literal('EUR'),
  closesAt: Time.nullable(),
  created: Time,
});
const GroupBuyPublishedData = z.object({ ...gbRef, status: z.literal('open'), publishedAt: Time });
const GroupBuyOrderPlacedData = z.object({
  ...orderRef,
  status: z.literal('pending'),
  items: z.array(z.object({ itemId: z.string(), quantity: z.number().int(), unitAmount: Amount })),
  amount: Amount.describe('What the buyer pays into escrow: the goods plus the deposit fee'),
  currency: z.literal('EUR'),
  expiresAt: Time,
  created: Time,
});
const GroupBuyOrderPaidData = z.object({ ...orderRef, status: z.literal('paid'), amount: Amount, txHash: TxHash, paidAt: Time });
const GroupBuyClosedData = z.object({
  ...gbRef,
  status: z.enum(['locked', 'failed']).describe('locked: succeeded, the deposits are held until released; failed: every deposit goes back'),
  paidUnits: z.number().int(),
  paidAmount: Amount,
  finalPrices: z.array(z.object({ itemId: z.string(), unitAmount: Amount.describe('The price settled at: the tier reached by paid units') })),
  closedAt: Time,
});
const GroupBuyCancelledData = z.object({ ...gbRef, status: z.literal('cancelled'), reason: z.string().nullable(), cancelledAt: Time });
const GroupBuySettledData = z.object({
  ...gbRef,
  released: Amount.describe('Paid out to the seller, the organiser and the platform'),
  refunded: Amount.describe('Paid back to buyers: tier differences, disputes, a failed or cancelled group-buy'),
  settledAt: Time,
});

const RelaisShipmentUpdatedData = z.object({
  ...poolRef,
  shipmentId: Uuid,
  trackingNumber: z.string(),
  network: z.string().describe('The pick-up point network: mondial_relay, colissimo, chronopost, inpost, community, sandbox'),
  pointId: z.string().optional().describe('The pick-up point (`<network>:<pointId>`); on the shipment\'s creation'),
  status: z.string().describe('label_created, in_transit, out_for_delivery, available_for_pickup, delivered, returned, failed (forward only)'),
  previous: z.string().nullable().describe('The status before; null on the shipment\'s creation'),
  occurredAt: Time,
});
const RelaisParcelCollectedData = z.object({
  ...reservationRef,
  shipmentId: Uuid,
  pointId: z.string(),
  hostId: Uuid.nullable().describe('The community host who handed the parcel over'),
  collectedAt: Time,
});

/** What a type's `subject` is: the id of the resource the event is about. */
export type PublicSubject =
  | 'shipment'
  | 'pool'
  | 'reservation'
  | 'dispute'
  | 'settlement'
  | 'stray payment operation'
  | 'reservation, or stray payment operation'
  | 'invoice'
  | 'payment request'
  | 'account'
  | 'transfer'
  | 'deal';
/**
 * Every type's data may carry `livemode`: the mode of the object it is about, when that object has one (a /v1 object,
 * a pool created through /v1). Absent: the deployment's mode. The feed and the webhooks deliver each event in its mode.
 */
const Livemode = { livemode: z.boolean().optional().describe('The mode of the object it is about (absent: the deployment’s): a key reads and receives its own mode’s events only') };
const def = <S extends z.ZodObject>(subject: PublicSubject, description: string, data: S) => ({
  subject,
  description,
  // A type whose data names its mode already (the /v1 objects') keeps its own declaration.
  data: 'livemode' in data.shape ? data : data.extend(Livemode),
});

/** Every public type: what it means and its `data`. Add new types at the end; never remove one. */
export const PUBLIC_EVENT_CATALOGUE = {
  'pool.created': def('pool', 'An organiser created a pool (a DRAFT).', PoolCreatedData),
  'pool.updated': def('pool', 'Fields of a pool changed (a draft edited, or its country). Read the pool for the values.', PoolUpdatedData),
  'pool.published': def('pool', 'The pool opened: buyers can reserve.', PoolPublishedData),
  'pool.closed': def('pool', 'The pool closed at its deadline or early: succeeded (LOCKED) or failed.', PoolClosedData),
  'pool.cancelled': def('pool', 'The organiser withdrew the pool: every paid buyer is owed their deposit back.', PoolCancelledData),
  'pool.delivered': def('pool', 'The organiser handed the goods over: each buyer’s inspection period starts.', PoolDeliveredData),
  'pool.settled': def('pool', 'Nothing is left in escrow: the escrow account was merged back.', PoolSettledData),
  'pool.archived': def('pool', 'The organiser archived the pool.', PoolArchivedData),
  'pool.unarchived': def('pool', 'The organiser unarchived the pool.', PoolUnarchivedData),
  'pool.visibility_changed': def('pool', 'The pool’s marketplace visibility changed (a delist).', PoolVisibilityChangedData),
  'pool.listed': def('pool', 'The listing fee was paid (or is zero): the pool is LISTED or FEATURED.', PoolListedData),
  'pool.listing_fee_refunded': def('pool', 'A delist refunded the listing fee on the ledger.', PoolListingFeeRefundedData),
  'escrow.opened': def('pool', 'The pool’s escrow account is open on the ledger.', EscrowOpenedData),
  'reservation.placed': def('reservation', 'A buyer holds units (or pledges) until `expiresAt`.', ReservationPlacedData),
  'reservation.signed': def('reservation', 'The buyer accepted the terms and was handed the deposit to sign.', ReservationSignedData),
  'reservation.paid': def('reservation', 'The deposit was verified on the ledger: the units are paid for.', ReservationPaidData),
  'reservation.expired': def('reservation', 'A PENDING reservation passed its expiry unpaid.', ReservationExpiredData),
  'reservation.cancelled': def('reservation', 'The reservation was cancelled.', ReservationCancelledData),
  'reservation.late_payment_received': def('reservation', 'A deposit came for a reservation that no longer held: owed back to the buyer.', ReservationLatePaymentData),
  'reservation.accepted': def('reservation', 'The buyer confirmed receipt, or the inspection period passed: the deposit may be released.', ReservationAcceptedData),
  'reservation.settled': def('reservation', 'A settled round released and/or refunded the reservation’s deposit.', ReservationSettledData),
  'dispute.opened': def('dispute', 'A buyer disputes a paid reservation: its release is held.', DisputeOpenedData),
  'dispute.contested': def('dispute', 'The organiser contested the dispute.', DisputeContestedData),
  'dispute.resolved': def('dispute', 'The dispute ended: refunded, withdrawn or lapsed.', DisputeResolvedData),
  'settlement.prepared': def('settlement', 'The organiser asked to settle: the rounds to cosign before `releaseUntil`.', SettlementPreparedData),
  'release.settled': def('settlement', 'A settlement round was applied on the ledger.', ReleaseSettledData),
  'payout.settled': def('settlement', 'One recipient of a settled round was paid.', PayoutSettledData),
  'refund.settled': def('reservation, or stray payment operation', 'Money went back on the ledger: a buyer’s deposit (or its refunded part), a late deposit, or a stray payment.', RefundSettledData),
  'stray_payment.received': def('stray payment operation', 'Money was paid straight into the escrow account (not a deposit): owed back to its sender.', StrayPaymentReceivedData),
  'invoice.issued': def('invoice', 'An invoice or credit note was issued.', InvoiceIssuedData),
  'request.created': def('payment request', 'A payment request was opened: it waits for payments on the ledger until `dueAt`.', RequestCreatedData),
  'request.payment_received': def('payment request', 'A payment to the payee carrying the request’s memo was verified on the ledger.', RequestPaymentReceivedData),
  'request.paid': def('payment request', 'The payments reached the amount due: the request is paid (its invoice follows).', RequestPaidData),
  'request.expired': def('payment request', 'The request passed its due time unpaid.', RequestExpiredData),
  'request.voided': def('payment request', 'The payee voided the open request.', RequestVoidedData),
  'account.created': def('account', 'A partner created an account (/v1/accounts).', AccountCreatedData),
  'account.updated': def('account', 'A partner changed an account’s name or metadata.', AccountUpdatedData),
  'account.wallet_linked': def('account', 'The holder of an account a partner created proved control of a Stellar account: it is the account’s wallet now.', AccountWalletLinkedData),
  'transfer.created': def('transfer', 'A transfer was built: the sender signs it before `expiresAt`.', TransferCreatedData),
  'transfer.settled': def('transfer', 'The ledger applied the transfer.', TransferSettledData),
  'transfer.failed': def('transfer', 'The ledger refused the transfer (or applied it as failed): `failureCode` says why.', TransferFailedData),
  'transfer.canceled': def('transfer', 'The transfer was cancelled before it was signed.', TransferCanceledData),
  'deal.created': def('deal', 'A deal was created between a buyer and a seller: nothing is in escrow yet.', DealCreatedData),
  'deal.funded': def('deal', 'The buyer’s deposit was verified on the ledger: the escrow holds the amount.', DealFundedData),
  'deal.delivered': def('deal', 'The seller delivered: the inspection period runs until `inspectionEndsAt`.', DealDeliveredData),
  'deal.accepted': def('deal', 'The buyer accepted the deal (or withdrew their dispute by accepting).', DealAcceptedData),
  'deal.disputed': def('deal', 'The buyer disputed the deal: the escrow holds until the dispute ends.', DealDisputedData),
  'deal.released': def('deal', 'The escrow paid the split on the ledger and was merged back.', DealReleasedData),
  'deal.refunded': def('deal', 'The escrow paid everything back to the buyer on the ledger.', DealRefundedData),
  'deal.cancelled': def('deal', 'The deal was cancelled before it was funded.', DealCancelledData),
  'group_buy.created': def('pool', 'A group-buy was created (a draft): the twin of pool.created, in /v1 ids.', GroupBuyCreatedData),
  'group_buy.published': def('pool', 'The group-buy opened: orders can be placed. The twin of pool.published.', GroupBuyPublishedData),
  'group_buy.order_placed': def('reservation', 'An order holds units until `expiresAt`. The twin of reservation.placed.', GroupBuyOrderPlacedData),
  'group_buy.order_paid': def('reservation', 'The order’s deposit was verified on the ledger. The twin of reservation.paid.', GroupBuyOrderPaidData),
  'group_buy.closed': def('pool', 'The group-buy closed (deadline or organiser): the prices are final. The twin of pool.closed.', GroupBuyClosedData),
  'group_buy.cancelled': def('pool', 'The organiser cancelled the group-buy: every paid order is owed back. The twin of pool.cancelled.', GroupBuyCancelledData),
  'group_buy.settled': def('pool', 'Nothing is left in escrow: paid out and refunded. The twin of pool.settled.', GroupBuySettledData),
  'relais.shipment.updated': def('shipment', 'A shipment of a pool\'s parcels to a pick-up point was created or moved forward in its tracking.', RelaisShipmentUpdatedData),
  'relais.parcel.collected': def('reservation', 'A buyer collected their parcel at a community host with their one-time code.', RelaisParcelCollectedData),
} as const;

export type PublicEventType = keyof typeof PUBLIC_EVENT_CATALOGUE;
export type PublicEventData<T extends PublicEventType> = z.infer<(typeof PUBLIC_EVENT_CATALOGUE)[T]['data']>;
export const PUBLIC_EVENT_TYPES = Object.keys(PUBLIC_EVENT_CATALOGUE) as PublicEventType[];
export const isPublicEventType = (t: string): t is PublicEventType => Object.hasOwn(PUBLIC_EVENT_CATALOGUE, t);

/** The envelope of every public event (the feed's items, a webhook's body). */
export const PublicEventEnvelope = z
  .object({
    id: z.string().describe('`evt_…`: stable forever (a rebuild gives the same id); the webhook-id of its deliveries'),
    type: z.string().describe('A public type, e.g. `reservation.paid`'),
    createdAt: Time,
    tenant: Uuid,
    subject: z.string().describe('The id of the resource it is about (pool, reservation, dispute, settlement, invoice…)'),
    sequence: z.number().int().describe('The revision of the stream it comes from: order and dedupe by (subject, sequence)'),
    apiVersion: z.literal(API_VERSION),
    data: z.record(z.string(), z.unknown()).describe('The type’s data: see GET /v1/events/types'),
  })
  .describe('PublicEvent');
export type PublicEvent = z.infer<typeof PublicEventEnvelope>;

/** One type as published: what it means, what its subject is, and the JSON Schema (draft 2020-12) of the whole event. */
export interface PublishedType {
  description: string;
  subject: PublicSubject;
  schema: Record<string, unknown>;
}

export const publicEventJsonSchemas = (): Record<PublicEventType, PublishedType> =>
  Object.fromEntries(
    PUBLIC_EVENT_TYPES.map((type) => {
      const { description, subject, data } = PUBLIC_EVENT_CATALOGUE[type];
      const schema = z.toJSONSchema(PublicEventEnvelope.extend({ type: z.literal(type), data }).describe(description), {
        target: 'draft-2020-12',
        unrepresentable: 'any',
        // As input: no `additionalProperties: false`, so a receiver validating with it accepts the optional
        // properties a later version adds (the compatibility rule allows them).
        io: 'input',
      }) as Record<string, unknown>;
      return [type, { description, subject, schema }];
    }),
  ) as Record<PublicEventType, PublishedType>;

/** The catalogue as published in docs/public-events.json and served by GET /v1/events/types. */
export const publicEventCatalogueDocument = (): { apiVersion: typeof API_VERSION; types: Record<string, PublishedType> } => ({
  apiVersion: API_VERSION,
  types: publicEventJsonSchemas(),
});
