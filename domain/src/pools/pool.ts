import { evolvePoolRelais, initialPoolRelais, type PoolRelaisState } from '../relais/pool-state';
import type {
  AccountType,
  EventData,
  ListingRefund,
  PoolDraftFields,
  PoolEvent,
  PoolStatus,
  PoolType,
  Role,
} from '@cagnotte/event-schemas';
import { requireOrganiserOf } from './organiser';
import { ForbiddenError, IllegalStateError, NotFoundError, ConflictError, ValidationError, assertNever, type FieldErrors } from '../errors';
import { LEDGER_AMOUNT_EXCEEDED, fitsLedger, isLedgerAmount, isPositiveAmount, ledgerBoundMessage, parseAmount } from '../money';


import { jsonEqual } from '../equal';
import { emptyHoldings, type Holdings } from '../reservations/holdings';
import { evolveHoldings } from '../reservations/evolve';
import { evolveListing, initialListing, type Listing } from './listing-state';
import { emptySettlementBook, evolveEscrowFeature, type Closing, type SettlementBook } from '../escrow/state';

/** The pool's escrow account, as publishing opened it. */
export interface PoolEscrowState {
  accountId: string;
  organiserSigner: string;
  reclaimAfter: string;
}

/** The pool as its stream folds it. `none` until PoolCreated. */
export type Pool =
  | { status: 'none' }
  | {
      status: PoolStatus;
      id: string;
      tenantId: string;
      type: PoolType;
      organiserId: string;
      organiserName: string;
      fields: PoolDraftFields;
      archivedAt: string | null;
      publishedAt: string | null;
      /** The paid listing fee still refundable on delist (set by the listing operation), or null. */
      listingFee: ListingRefund | null;
      escrow: PoolEscrowState | null;
      /** The reservations (see reservations/holdings.ts: updated in place by the fold). */
      holdings: Holdings;
      listing: Listing;
      /** Set when the pool closed (domain/src/escrow). */
      closing: Closing | null;
      cancelledAt: string | null;
      settlement: SettlementBook;
      /** The organiser accepted the COMMISSION mandate for this (brokered, paid) pool. */
      commissionMandate: boolean;
      /** Its parcels: unavailable points, shipments, collections (domain/src/relais). */
      relais: PoolRelaisState;
      createdAt: string;
      updatedAt: string;
    };
export type ExistingPool = Exclude<Pool, { status: 'none' }>;

export const initialPool = (): Pool => ({ status: 'none' });

export interface PoolActor {
  userId: string;
  role: Role;
  accountType: AccountType;
  displayName: string;
}

interface CommandMeta {
  actor: PoolActor;
  now: string;
  ip: string | null;
}

/** The escrow account the route opened on the ledger before publishing (docs/escrow.md). */
export interface EscrowOpening {
  accountId: string;
  organiserSigner: string;
  platformSigner: string;
  threshold: number;
  reclaimAfter: string;
  setupTxHash: string | null;
}

export type PoolCreateFields = Omit<PoolDraftFields, never>;
export type PoolPatch = Partial<PoolDraftFields> & { status?: PoolStatus };

export type PoolCommand =
  | {
      type: 'CreatePool';
      data: {
        poolId: string;
        tenantId: string;
        poolType: PoolType;
        fields: PoolCreateFields;
        /** Present when the organiser ticked the COMMISSION mandate: the server-authoritative text's version and hash. */
        commissionMandate: { version: string; hash: string } | null;
        /** The mode of the key (or deployment) creating it: recorded on PoolCreated, so every projection keeps it. */
        livemode?: boolean;
      };
      metadata: CommandMeta;
    }
  | { type: 'UpdatePool'; data: { patch: PoolPatch; delistRefundWindowHours?: number }; metadata: CommandMeta }
  | { type: 'PublishPool'; data: { escrow: EscrowOpening }; metadata: CommandMeta }
  | { type: 'ArchivePool'; data: Record<string, never>; metadata: CommandMeta }
  | { type: 'UnarchivePool'; data: Record<string, never>; metadata: CommandMeta };

/** Fields that carry money or its routing: editable only while DRAFT. */
export const MONEY_SPINE_FIELDS = ['sellerId', 'payoutAccount', 'organiserCommissionPercent'] as const;
/** Once published only these change, and visibility only towards PRIVATE. */
const PUBLISHED_EDITABLE = new Set<keyof PoolDraftFields>(['marketplaceVisibility', 'country']);

const PAID_VISIBILITIES = new Set(['LISTED', 'FEATURED']);

const requireOrganiser = (actor: PoolActor) => {
  if (actor.role !== 'organiser') throw new ForbiddenError('organise_capability_required', 'Organise capability required');
};

/** Owner-only: another organiser's pool does not exist for the caller. Then the role is checked. */
const requireOwnedPool = (state: Pool, actor: PoolActor): ExistingPool => {
  if (state.status === 'none' || state.organiserId !== actor.userId) throw new NotFoundError('pool');
  requireOrganiser(actor);
  return state;
};


/** A Stellar secret seed (StrKey "S…", 56 characters) standing alone in a value. */
const STELLAR_SECRET_SEED = /(?<![A-Z2-7])S[A-Z2-7]{55}(?![A-Z2-7])/;

/**
 * Paths (`config.notes`, `config.units.0.label`) of every string that holds something shaped like a Stellar
 * secret seed. Events are kept forever: a secret key must never reach one, whatever field it was typed in.
 */
export const secretSeedPaths = (value: unknown, path: string[] = []): string[] => {
  if (typeof value === 'string') return STELLAR_SECRET_SEED.test(value) ? [path.join('.')] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => secretSeedPaths(v, [...path, String(i)]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => secretSeedPaths(v, [...path, k]));
  return [];
};

export const SECRET_SEED_MESSAGE = 'looks like a Stellar secret key (S…): secret keys are never sent to or stored by the service';

const requireNoSecrets = (fields: object) => {
  const paths = secretSeedPaths(fields);
  if (paths.length > 0) {
    throw new ValidationError(Object.fromEntries(paths.map((p) => [p || 'body', [SECRET_SEED_MESSAGE]])), 'A secret key was sent', 'secret_key_refused');
  }
};

const requireBusinessForCommission = (percent: string | null | undefined, actor: PoolActor) => {
  if (percent != null && actor.accountType !== 'BUSINESS') {
    throw new ForbiddenError('business_account_required', 'organiserCommissionPercent is accepted only for BUSINESS accounts');
  }
};

const isPaid = (f: PoolDraftFields) => isPositiveAmount(f.targetAmount) || (f.config.units ?? []).some((u) => isPositiveAmount(u.price));
const isBrokered = (f: PoolDraftFields, organiserId: string) => f.sellerId != null && f.sellerId !== organiserId;


/** Only the fields whose value differs from the pool's current one. */
const changedFields = (current: PoolDraftFields, patch: PoolPatch): Partial<PoolDraftFields> => {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'status' || value === undefined) continue;
    if (!jsonEqual(current[key as keyof PoolDraftFields], value)) changes[key] = value;
  }
  return changes as Partial<PoolDraftFields>;
};

/** Units and pick-up points are addressed by id: two with the same id are refused. */
const configErrors = (config: PoolDraftFields['config'] | undefined): FieldErrors => {
  const errors: FieldErrors = {};
  for (const list of ['units', 'relais'] as const) {
    const seen = new Set<string>();
    (config?.[list] ?? []).forEach((item, i) => {
      if (seen.has(item.id)) errors[`config.${list}.${i}.id`] = [`duplicate id ${item.id}`];
      seen.add(item.id);
    });
  }
  return errors;
};

/**
 * Every amount a pool is made of fits one ledger payment (MAX_LEDGER_AMOUNT): each price, tier price, pledge bound
 * and the target; and the stock of its stocked units, sold at their base price, could be released in one payment. A
 * pool with an unstocked unit has no such total: its reservations are refused once the pool would hold more
 * (domain/src/reservations/decide.ts).
 */
const amountErrors = (fields: Partial<PoolDraftFields>): FieldErrors => {
  const errors: FieldErrors = {};
  const check = (path: string, amount: string | null | undefined) => {
    if (amount != null && !isLedgerAmount(amount)) errors[path] = [ledgerBoundMessage()];
  };
  check('targetAmount', fields.targetAmount);
  const config = fields.config;
  check('config.pledge.min', config?.pledge?.min);
  check('config.pledge.max', config?.pledge?.max);
  let stock = 0n;
  (config?.units ?? []).forEach((u, i) => {
    check(`config.units.${i}.price`, u.price);
    (u.tiers ?? []).forEach((t, k) => check(`config.units.${i}.tiers.${k}.price`, t.price));
    if (u.quantity != null && isLedgerAmount(u.price)) stock += parseAmount(u.price) * BigInt(u.quantity);
  });
  if (Object.keys(errors).length === 0 && !fitsLedger(stock)) errors['config.units'] = [ledgerBoundMessage('the stock at its prices (Σ price × quantity)')];
  return errors;
};

const requireValidFields = (fields: Partial<PoolDraftFields>) => {
  const errors = configErrors(fields.config);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  const amounts = amountErrors(fields);
  if (Object.keys(amounts).length > 0) throw new ValidationError(amounts, 'More than one ledger payment can carry', LEDGER_AMOUNT_EXCEEDED);
};

const publishErrors = (pool: ExistingPool): FieldErrors => {
  const errors: FieldErrors = {};
  if (pool.type === 'GROUPS' && (pool.fields.config.units ?? []).length === 0) {
    errors['config.units'] = ['a GROUPS pool needs at least one unit before it is published'];
  }
  if (pool.type === 'FUNDING' && !isPositiveAmount(pool.fields.targetAmount)) {
    errors.targetAmount = ['a FUNDING pool needs a positive targetAmount before it is published'];
  }
  return errors;
};

const visibilityError = (to: string) =>
  new ValidationError(
    { marketplaceVisibility: [`${to} is set by the paid listing operation (POST /api/pools/{id}/list), not through PATCH`] },
    'Listing a pool goes through the listing operation',
    'listing_requires_listing_operation',
  );

/** The tenant's default when it set none: a delist within 3 days of listing, before any paid reservation, is refunded. */
export const DEFAULT_DELIST_REFUND_WINDOW_HOURS = 72;

/**
 * A delist refunds the listing fee when the pool is still OPEN, a fee was paid and not yet refunded, the listing
 * is less than the window old, and no buyer has paid (a pool people paid into has had the exposure it bought).
 */
export const delistRefundable = (pool: ExistingPool, now: string, windowHours = DEFAULT_DELIST_REFUND_WINDOW_HOURS): boolean => {
  if (!PAID_VISIBILITIES.has(pool.fields.marketplaceVisibility) || pool.listingFee === null || pool.status !== 'OPEN') return false;
  if (!pool.listing.listedAt || Date.parse(now) - Date.parse(pool.listing.listedAt) > windowHours * 3_600_000) return false;
  for (const r of pool.holdings.byId.values()) if (r.status === 'PAID') return false;
  return true;
};

const decideUpdate = (pool: ExistingPool, patch: PoolPatch, meta: CommandMeta, windowHours?: number): PoolEvent[] => {
  // The contract's state table: PATCH leaves the status as it is (a DRAFT stays DRAFT); publishing is its own operation.
  if (patch.status !== undefined && patch.status !== pool.status) {
    throw new ValidationError(
      { status: [`PATCH does not change the status (it stays ${pool.status}); publish a DRAFT with POST /api/pools/{id}/publish`] },
      'The status is not changed through PATCH',
      'status_not_patchable',
    );
  }
  requireNoSecrets(patch);
  const changes = changedFields(pool.fields, patch);
  requireValidFields(changes);
  if (changes.marketplaceVisibility && PAID_VISIBILITIES.has(changes.marketplaceVisibility)) throw visibilityError(changes.marketplaceVisibility);
  requireBusinessForCommission(changes.organiserCommissionPercent, meta.actor);
  const events: PoolEvent[] = [];

  if (pool.status === 'DRAFT') {
    if (Object.keys(changes).length > 0) {
      events.push({ type: 'PoolDraftUpdated', data: { poolId: pool.id, changes, updatedAt: meta.now } });
    }
    return events;
  }

  const refused: FieldErrors = {};
  for (const key of Object.keys(changes) as (keyof PoolDraftFields)[]) {
    if (!PUBLISHED_EDITABLE.has(key)) {
      const spine = (MONEY_SPINE_FIELDS as readonly string[]).includes(key) || key === 'config';
      refused[key] = [spine ? 'money-spine fields (seller, payout, commission, relais) are editable only while DRAFT' : 'not editable once the pool is published'];
    }
  }
  if (Object.keys(refused).length > 0) throw new ValidationError(refused, 'Only marketplaceVisibility (to PRIVATE) and country can change once a pool is published', 'pool_published');

  if (changes.marketplaceVisibility) {
    const refundable = delistRefundable(pool, meta.now, windowHours);
    events.push({
      type: 'PoolVisibilityChanged',
      data: {
        poolId: pool.id,
        from: pool.fields.marketplaceVisibility,
        to: changes.marketplaceVisibility,
        refund: refundable ? pool.listingFee : null,
        changedAt: meta.now,
      },
    });
  }
  if (changes.country) {
    events.push({ type: 'PoolCountryChanged', data: { poolId: pool.id, from: pool.fields.country, to: changes.country, changedAt: meta.now } });
  }
  return events;
};

/** What publishing requires before the route opens an escrow for it (the ledger is not touched for a pool that cannot publish). */
export const requirePublishable = (state: Pool, actor: PoolActor): ExistingPool => {
  const pool = requireOwnedPool(state, actor);
  if (pool.status !== 'DRAFT') throw new IllegalStateError('pool_not_draft', 'Only a DRAFT pool can be published');
  const errors = publishErrors(pool);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, 'The pool is not ready to be published', 'pool_incomplete');
  return pool;
};

const decidePublish = (state: Pool, actor: PoolActor, escrow: EscrowOpening, now: string): PoolEvent[] => {
  const pool = requirePublishable(state, actor);
  return [
    { type: 'PoolPublished', data: { poolId: pool.id, publishedAt: now } },
    { type: 'PoolEscrowOpened', data: { poolId: pool.id, ...escrow, openedAt: now } },
  ];
};

export const decidePool = (command: PoolCommand, state: Pool): PoolEvent[] => {
  const { actor, now } = command.metadata;
  switch (command.type) {
    case 'CreatePool': {
      if (state.status !== 'none') throw new ConflictError('pool_exists', 'Pool already exists');
      requireOrganiser(actor);
      const { poolId, tenantId, poolType, fields, commissionMandate, livemode } = command.data;
      requireNoSecrets(fields);
      if (PAID_VISIBILITIES.has(fields.marketplaceVisibility)) throw visibilityError(fields.marketplaceVisibility);
      requireBusinessForCommission(fields.organiserCommissionPercent, actor);
      requireValidFields(fields);
      const events: PoolEvent[] = [
        {
          type: 'PoolCreated',
          data: {
            ...fields,
            poolId,
            tenantId,
            type: poolType,
            organiserId: actor.userId,
            organiserName: actor.displayName,
            createdAt: now,
            ...(livemode === undefined ? {} : { livemode }),
          },
        },
      ];
      if (commissionMandate && isBrokered(fields, actor.userId) && isPaid(fields)) {
        events.push({
          type: 'PoolCommissionMandateAccepted',
          data: { poolId, userId: actor.userId, kind: 'COMMISSION', ...commissionMandate, acceptedAt: now, ip: command.metadata.ip },
        });
      }
      return events;
    }
    case 'UpdatePool':
      return decideUpdate(requireOwnedPool(state, actor), command.data.patch, command.metadata, command.data.delistRefundWindowHours);
    case 'PublishPool':
      return decidePublish(state, actor, command.data.escrow, now);
    case 'ArchivePool': {
      const pool = requireOrganiserOf(state, actor);
      if (pool.archivedAt) throw new IllegalStateError('pool_already_archived', 'Pool is already archived');
      return [{ type: 'PoolArchived', data: { poolId: pool.id, archivedAt: now } }];
    }
    case 'UnarchivePool': {
      const pool = requireOrganiserOf(state, actor);
      if (!pool.archivedAt) throw new IllegalStateError('pool_not_archived', 'Pool is not archived');
      return [{ type: 'PoolUnarchived', data: { poolId: pool.id, unarchivedAt: now } }];
    }
    default:
      return assertNever(command);
  }
};

const created = (data: EventData<'PoolCreated'>): ExistingPool => {
  // `livemode` is the read side's (the /v1 views filter on it): nothing this aggregate decides depends on it.
  const { poolId, tenantId, type, organiserId, organiserName, createdAt, livemode: _livemode, ...fields } = data;
  return {
    status: 'DRAFT',
    id: poolId,
    tenantId,
    type,
    organiserId,
    organiserName,
    fields,
    archivedAt: null,
    publishedAt: null,
    listingFee: null,
    escrow: null,
    holdings: emptyHoldings(),
    listing: initialListing(),
    closing: null,
    cancelledAt: null,
    settlement: emptySettlementBook(),
    commissionMandate: false,
    relais: initialPoolRelais(),
    createdAt,
    updatedAt: createdAt,
  };
};

/** `never`: the switch below is exhaustive over PoolEvent. At run time a stray event of another aggregate changes nothing. */
const unknownEvent = (_event: never, state: Pool): Pool => state;

/**
 * Folds one event of the pool's stream into the pool. The switch is exhaustive over PoolEvent (the compiler says
 * when a pool event is added); anything else (a stream holds only its aggregate's events) leaves the pool as it is.
 */
export const evolvePool = (state: Pool, event: PoolEvent): Pool => {
  if (event.type === 'PoolCreated') return created(event.data);
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'PoolDraftUpdated':
      return { ...state, fields: { ...state.fields, ...event.data.changes }, updatedAt: event.data.updatedAt };
    case 'PoolPublished':
      return { ...state, status: 'OPEN', publishedAt: event.data.publishedAt, updatedAt: event.data.publishedAt };
    case 'PoolVisibilityChanged':
      return {
        ...state,
        fields: { ...state.fields, marketplaceVisibility: event.data.to },
        listingFee: event.data.refund ? null : state.listingFee,
        listing:
          event.data.refund && state.listing.listingId && state.listing.source
            ? { ...state.listing, owed: { listingId: state.listing.listingId, amount: event.data.refund.amount, destination: state.listing.source } }
            : state.listing,
        updatedAt: event.data.changedAt,
      };
    case 'PoolCountryChanged':
      return { ...state, fields: { ...state.fields, country: event.data.to }, updatedAt: event.data.changedAt };
    case 'PoolArchived':
      return { ...state, archivedAt: event.data.archivedAt, updatedAt: event.data.archivedAt };
    case 'PoolUnarchived':
      return { ...state, archivedAt: null, updatedAt: event.data.unarchivedAt };
    case 'PoolCommissionMandateAccepted':
      return { ...state, commissionMandate: true };
    case 'ReservationPlaced':
    case 'ReservationSigned':
    case 'ReservationPaid':
    case 'ReservationExpired':
    case 'ReservationCancelled':
    case 'ReservationLatePaymentReceived':
      return { ...state, holdings: evolveHoldings(state.holdings, event) };
    case 'PoolEscrowOpened': {
      const { accountId, organiserSigner, reclaimAfter } = event.data;
      return { ...state, escrow: { accountId, organiserSigner, reclaimAfter } };
    }
    case 'PoolListingPrepared':
    case 'PoolListingFeeRefunded':
      return { ...state, listing: evolveListing(state.listing, event) };
    case 'PoolListed': {
      const d = event.data;
      return {
        ...state,
        fields: { ...state.fields, marketplaceVisibility: d.tier },
        listingFee: d.txHash && parseAmount(d.amount) > 0n ? { amount: d.amount, source: d.txHash } : null,
        listing: evolveListing(state.listing, event),
        updatedAt: d.listedAt,
      };
    }
    case 'PoolClosed':
      return { ...evolveEscrowFeature(state, event), status: event.data.outcome === 'SUCCEEDED' ? 'LOCKED' : 'FAILED', updatedAt: event.data.closedAt };
    case 'PoolCancelled':
      return { ...evolveEscrowFeature(state, event), status: 'CANCELLED', updatedAt: event.data.cancelledAt };
    case 'PoolSettled':
      return { ...evolveEscrowFeature(state, event), status: state.status === 'LOCKED' ? 'SETTLED' : state.status, updatedAt: event.data.settledAt };
    case 'PoolDelivered':
    case 'ReservationReceiptConfirmed':
    case 'ReservationAutoAccepted':
    case 'DisputeOpened':
    case 'DisputeContested':
    case 'DisputeResolved':
    case 'EscrowSettlementPrepared':
    case 'EscrowRoundSettled':
    case 'EscrowPayoutSettled':
    case 'ReservationSettled':
    case 'EscrowStrayPaymentRecorded':
    case 'EscrowStrayPaymentReturned':
      return evolveEscrowFeature(state, event);
    case 'PickupPointUnavailable':
    case 'ReservationPickupPointChanged':
    case 'PoolShipmentCreated':
    case 'PoolShipmentStatusChanged':
    case 'RelaisParcelCollected':
      return { ...state, relais: evolvePoolRelais(state.relais, state.holdings, event) };
    default:
      return unknownEvent(event, state);
  }
};

export const foldPool = (events: PoolEvent[]): Pool => events.reduce(evolvePool, initialPool());
