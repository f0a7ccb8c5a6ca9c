import { z } from 'zod';
import { MarketplaceVisibility, PoolStatus, PoolType, UnavailableReason } from '@cagnotte/event-schemas';
import { organiserMemberOf, pickupPointRowsOf, type PoolDocument } from './fold';
import type { MemberRow, PickupPointRow, PoolRow } from './tables';
import { ReservationSchema, type ReservationView } from '../reservations/view';
import { PoolClosing, ReleaseConfigView, closingView, releaseConfigView } from './closing';

/*
 * The GroupBuy as it is served, once: the query side renders rows of the read model with it, the command side
 * renders the document its own events fold to (groupBuyOf).
 */

export const PoolMember = z.object({
  userId: z.string().optional().describe('Shown to the pool owner and to the member themself'),
  displayName: z.string(),
  role: z.string().describe('`organiser`, or `member`: a buyer holding a live PENDING or a PAID reservation'),
  joinedAt: z.string(),
});

export const PickupPoint = z.object({
  id: z.string(),
  name: z.string(),
  address: z.string().nullable(),
  postalCode: z.string().nullable(),
  city: z.string().nullable(),
  country: z.string().nullable(),
  lat: z.number().nullable(),
  lng: z.number().nullable(),
  openingHours: z.string().nullable(),
  available: z.boolean().describe('False once the point can no longer take the pool’s parcels (docs/relais.md): its buyers are asked to choose again, no one new may choose it'),
  unavailableReason: UnavailableReason.nullable().describe('Why it is unavailable; null while available'),
});

/** A unit as every reader of the pool sees it: whatever decides what a buyer pays and may buy is public. */
export const UnitView = z.object({
  id: z.string(),
  label: z.string(),
  price: z.string().describe('The unit price before any tier is reached (decimal string)'),
  quantity: z.number().int().nullable().optional().describe('The stock; null or absent: no limit'),
  minPerBuyer: z.number().int().optional().describe('The fewest units of it a buyer holds, across their reservations'),
  maxPerBuyer: z.number().int().optional().describe('The most units of it a buyer holds, across their reservations'),
  tiers: z
    .array(z.object({ minQuantity: z.number().int(), price: z.string() }))
    .optional()
    .describe('The group-buy discount: from `minQuantity` units held or paid in all, the unit costs `price`'),
});
const PledgeView = z
  .object({ min: z.string().optional(), max: z.string().optional() })
  .describe('FUNDING: the bounds of a pledge (decimal strings)');
const RelaisView = z.object({
  id: z.string(),
  name: z.string(),
  address: z.string().optional(),
  postalCode: z.string().optional(),
  city: z.string().optional(),
  country: z.string().optional(),
  lat: z.number().optional(),
  lng: z.number().optional(),
  openingHours: z.string().optional(),
});

/**
 * The part of `config` anyone who may read the pool sees: everything that decides what a buyer pays, may buy, and when
 * the money moves (units with their limits and tiers, the minimum, the pledge bounds, the release terms), and where
 * to collect.
 */
export const PublicPoolConfig = z
  .object({
    units: z.array(UnitView).optional(),
    relais: z.array(RelaisView).optional(),
    minimumUnits: z.number().int().optional().describe('GROUPS: the units paid in all below which the pool fails at its deadline'),
    parcelWeightG: z.number().int().optional().describe('GROUPS: the weight of one buyer’s parcel, in grams (every directory pick-up point of the pool takes it)'),
    pledge: PledgeView.optional(),
    release: ReleaseConfigView.optional(),
  })
  .describe('PublicPoolConfig');
/** The owner's view of `config`: the public part plus seller phone, notes, links and the escrow account. */
export const OwnerPoolConfig = PublicPoolConfig.extend({
  sellerPhone: z.string().optional(),
  notes: z.string().optional(),
  links: z.array(z.string()).optional(),
  escrow: z.object({ accountId: z.string() }).optional(),
}).describe('OwnerPoolConfig');

export const GroupBuy = z
  .object({
    id: z.string().uuid(),
    tenantId: z.string().uuid(),
    type: PoolType,
    status: PoolStatus,
    title: z.string(),
    description: z.string(),
    country: z.string(),
    currency: z.string(),
    marketplaceVisibility: MarketplaceVisibility,
    archivedAt: z.string().nullable(),
    organiserId: z.string().uuid(),
    organiserName: z.string(),
    sellerId: z.string().nullable(),
    payoutAccount: z.string().nullable().describe('Owner only; null for other viewers'),
    organiserCommissionPercent: z.string().nullable(),
    targetAmount: z.string().nullable(),
    deadline: z.string().nullable(),
    config: OwnerPoolConfig.describe(
      'Built from an allowlist: units (with their per-buyer limits and tiers), relais, minimumUnits, pledge and release terms for everyone; sellerPhone, notes, links and escrow (its account id only) for the owner. Never a secret.',
    ),
    pickupPoints: z.array(PickupPoint),
    members: z.array(PoolMember).describe('Empty for anonymous viewers'),
    myReservations: z.array(ReservationSchema).describe('The viewer\'s own reservations in this pool, oldest first (a stale PENDING reads as EXPIRED); empty for anonymous viewers'),
    publishedAt: z.string().nullable(),
    closing: PoolClosing.nullable().describe('Null while the pool has not closed (and for a cancelled pool)'),
    cancelledAt: z.string().nullable().describe('When the organiser cancelled the pool: every paid buyer is owed their deposit back'),
    settledAt: z.string().nullable().describe('When the last settlement merged the escrow back: nothing is left in escrow'),
    createdAt: z.string(),
    updatedAt: z.string(),
    revision: z.number().int().describe('Stream revision of the last change (0-based)'),
  })
  .describe('GroupBuy');
export type GroupBuy = z.infer<typeof GroupBuy>;
export type PublicPoolConfig = z.infer<typeof PublicPoolConfig>;
export type OwnerPoolConfig = z.infer<typeof OwnerPoolConfig>;

export interface Viewer {
  userId: string | null;
}

/*
 * Views are built from allowlists: every field served is named below, so whatever else a stored document
 * holds (keys of old free-form configs, secrets written before config was closed) is never served.
 */

type Loose = Record<string, unknown> | null | undefined;
const str = (v: unknown): v is string => typeof v === 'string';
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const int = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const list = (v: unknown): Loose[] => (Array.isArray(v) ? (v as Loose[]).filter((x) => x !== null && typeof x === 'object') : []);

export const unitView = (u: Loose): z.infer<typeof UnitView> => ({
  id: String(u?.id),
  label: String(u?.label),
  price: String(u?.price),
  ...(u?.quantity === null || num(u?.quantity) ? { quantity: u.quantity as number | null } : {}),
  ...(int(u?.minPerBuyer) ? { minPerBuyer: u.minPerBuyer } : {}),
  ...(int(u?.maxPerBuyer) ? { maxPerBuyer: u.maxPerBuyer } : {}),
  ...(Array.isArray(u?.tiers) ? { tiers: list(u.tiers).map((t) => ({ minQuantity: Number(t?.minQuantity), price: String(t?.price) })) } : {}),
});

/** `config.pledge`, each bound picked; absent when the stored value is not an object. */
const pledgeView = (p: Loose): z.infer<typeof PledgeView> | undefined =>
  p && typeof p === 'object' && !Array.isArray(p) ? { ...(str(p.min) ? { min: p.min } : {}), ...(str(p.max) ? { max: p.max } : {}) } : undefined;

const relaisView = (r: Loose): z.infer<typeof RelaisView> => ({
  id: String(r?.id),
  name: String(r?.name),
  ...(str(r?.address) ? { address: r.address } : {}),
  ...(str(r?.postalCode) ? { postalCode: r.postalCode } : {}),
  ...(str(r?.city) ? { city: r.city } : {}),
  ...(str(r?.country) ? { country: r.country } : {}),
  ...(num(r?.lat) ? { lat: r.lat } : {}),
  ...(num(r?.lng) ? { lng: r.lng } : {}),
  ...(str(r?.openingHours) ? { openingHours: r.openingHours } : {}),
});

/** `config` for anyone who may read the pool: units, relais, minimum, pledge bounds and release terms, each field picked. */
export const publicConfigView = (config: unknown): PublicPoolConfig => {
  const c = (config ?? {}) as Record<string, unknown>;
  const pledge = pledgeView(c.pledge as Loose);
  const release = releaseConfigView(c.release);
  return {
    ...(Array.isArray(c.units) ? { units: list(c.units).map(unitView) } : {}),
    ...(Array.isArray(c.relais) ? { relais: list(c.relais).map(relaisView) } : {}),
    ...(int(c.minimumUnits) ? { minimumUnits: c.minimumUnits } : {}),
    ...(int(c.parcelWeightG) ? { parcelWeightG: c.parcelWeightG } : {}),
    ...(pledge ? { pledge } : {}),
    ...(release ? { release } : {}),
  };
};

/** `config` for the owner: the public part, seller phone, notes, links, and of `escrow` only its account id. */
export const ownerConfigView = (config: unknown): OwnerPoolConfig => {
  const c = (config ?? {}) as Record<string, unknown>;
  const escrow = (c.escrow ?? null) as Loose;
  return {
    ...publicConfigView(c),
    ...(str(c.sellerPhone) ? { sellerPhone: c.sellerPhone } : {}),
    ...(str(c.notes) ? { notes: c.notes } : {}),
    ...(Array.isArray(c.links) ? { links: c.links.filter(str) } : {}),
    ...(escrow && typeof escrow === 'object' && str(escrow.accountId) && /^G[A-Z2-7]{55}$/.test(escrow.accountId) ? { escrow: { accountId: escrow.accountId } } : {}),
  };
};

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

const pickupPointsView = (points: PickupPointRow[]) =>
  [...points]
    .sort((a, b) => a.sort_order - b.sort_order)
    .map((p) => ({
      id: p.point_id,
      name: p.name,
      address: p.address,
      postalCode: p.postal_code,
      city: p.city,
      country: p.country,
      lat: p.lat,
      lng: p.lng,
      openingHours: p.opening_hours,
      available: p.available ?? true,
      unavailableReason: (p.unavailable_reason ?? null) as UnavailableReason | null,
    }));

/** Anonymous readers: the public fields, public config, no payout account, no members. */
export const publicGroupBuy = (row: PoolRow, points: PickupPointRow[]): GroupBuy => {
  const pool = row.doc;
  const f = pool.fields;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    type: pool.type,
    status: pool.status as GroupBuy['status'],
    title: f.title,
    description: f.description,
    country: f.country,
    currency: f.currency,
    marketplaceVisibility: f.marketplaceVisibility,
    archivedAt: pool.archivedAt,
    organiserId: pool.organiserId,
    organiserName: pool.organiserName,
    sellerId: f.sellerId,
    payoutAccount: null,
    organiserCommissionPercent: f.organiserCommissionPercent,
    targetAmount: f.targetAmount,
    deadline: f.deadline,
    config: publicConfigView(f.config),
    pickupPoints: pickupPointsView(points),
    members: [],
    myReservations: [],
    publishedAt: pool.publishedAt,
    closing: closingView(pool.closing),
    cancelledAt: pool.cancelledAt ?? null,
    settledAt: pool.settledAt ?? null,
    createdAt: pool.createdAt,
    updatedAt: pool.updatedAt,
    revision: Number(row.revision),
  };
};

/** A signed-in reader who is not the owner: the public view plus member names (and their own id only). */
export const memberGroupBuy = (row: PoolRow, members: MemberRow[], points: PickupPointRow[], viewerId: string, mine: ReservationView[] = []): GroupBuy => ({
  ...publicGroupBuy(row, points),
  myReservations: mine,
  members: members.map((m) => ({
    ...(m.user_id === viewerId ? { userId: m.user_id } : {}),
    displayName: m.display_name,
    role: m.role,
    joinedAt: iso(m.joined_at)!,
  })),
});

/** The owner: every field, the payout account and owner-only config included (never a secret). */
export const ownerGroupBuy = (row: PoolRow, members: MemberRow[], points: PickupPointRow[], mine: ReservationView[] = []): GroupBuy => ({
  ...publicGroupBuy(row, points),
  myReservations: mine,
  payoutAccount: row.doc.fields.payoutAccount,
  config: ownerConfigView(row.doc.fields.config),
  members: members.map((m) => ({ userId: m.user_id, displayName: m.display_name, role: m.role, joinedAt: iso(m.joined_at)! })),
});

/**
 * The view this viewer is entitled to: owner, signed-in member/reader, or anonymous. `members` are the organiser and
 * the buyers holding units (see withBuyers); `mine` the viewer's own reservations in the pool, rendered.
 */
export const toGroupBuy = (row: PoolRow, members: MemberRow[], points: PickupPointRow[], viewer: Viewer, mine: ReservationView[] = []): GroupBuy => {
  if (viewer.userId === null) return publicGroupBuy(row, points);
  if (viewer.userId === row.organiser_id) return ownerGroupBuy(row, members, points, mine);
  return memberGroupBuy(row, members, points, viewer.userId, mine);
};

/** The pool's members: its recorded members (the organiser) then each buyer holding units, once, by when they joined. */
export const withBuyers = (members: MemberRow[], buyers: Array<Omit<MemberRow, 'role'>>): MemberRow[] => {
  const seen = new Set(members.map((m) => m.user_id));
  const extra = buyers.filter((b) => !seen.has(b.user_id) && (seen.add(b.user_id), true)).map((b) => ({ ...b, role: 'member' }));
  return [...members, ...extra.sort((a, b) => new Date(a.joined_at).getTime() - new Date(b.joined_at).getTime())];
};

/**
 * The GroupBuy of a pool document as the pools fold builds it at `revision`: what a command answers, so that each answer
 * shows the state its own event produced, never a later writer's. It equals the read model's view of the same
 * revision: the pool's own fields from the document, members and myReservations from the reservations the command's
 * own fold holds (`holdings`), ordered as the reservations read model orders them.
 */
export const groupBuyOf = (
  pool: PoolDocument,
  revision: bigint,
  viewer: Viewer,
  /** The buyers holding units and the viewer's own reservations, as the command's own fold has them. */
  holdings: { buyers: Array<Omit<MemberRow, 'role'>>; mine: ReservationView[] } = { buyers: [], mine: [] },
): GroupBuy =>
  toGroupBuy(
    {
      id: pool.id,
      tenant_id: pool.tenantId,
      organiser_id: pool.organiserId,
      type: pool.type,
      status: pool.status,
      marketplace_visibility: pool.fields.marketplaceVisibility,
      archived_at: pool.archivedAt === null ? null : new Date(pool.archivedAt),
      country: pool.fields.country,
      title: pool.fields.title,
      doc: pool,
      created_at: new Date(pool.createdAt),
      updated_at: new Date(pool.updatedAt),
      revision: revision.toString(),
    },
    withBuyers([organiserMemberOf(pool)], holdings.buyers),
    pickupPointRowsOf(pool),
    viewer,
    holdings.mine,
  );

