import type { Knex } from 'knex';
import { z } from 'zod';
import type { ExistingPool } from '@cagnotte/domain';
import { MarketplaceVisibility, PoolStatus, PoolType } from '@cagnotte/event-schemas';

export const POOL_TABLES = { pools: 'rm_pools', members: 'rm_pool_members', pickupPoints: 'rm_pool_pickup_points' } as const;

export interface PoolRow {
  id: string;
  tenant_id: string;
  organiser_id: string;
  type: string;
  status: string;
  marketplace_visibility: string;
  archived_at: Date | null;
  country: string;
  title: string;
  doc: ExistingPool;
  created_at: Date;
  updated_at: Date;
  revision: string;
}

export interface MemberRow {
  pool_id: string;
  user_id: string;
  display_name: string;
  role: string;
  joined_at: Date;
}

export interface PickupPointRow {
  pool_id: string;
  point_id: string;
  sort_order: number;
  name: string;
  address: string | null;
  postal_code: string | null;
  city: string | null;
  country: string | null;
  lat: number | null;
  lng: number | null;
  opening_hours: string | null;
}

export const PoolMember = z.object({
  userId: z.string().optional().describe('Shown to the pool owner and to the member themself'),
  displayName: z.string(),
  role: z.string().describe('`organiser` or `member`'),
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
});

const UnitView = z.object({ id: z.string(), label: z.string(), price: z.string(), quantity: z.number().int().nullable().optional() });
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

/** The part of `config` anyone who may read the pool sees. */
export const PublicPoolConfig = z.object({ units: z.array(UnitView).optional(), relais: z.array(RelaisView).optional() }).describe('PublicPoolConfig');
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
    config: OwnerPoolConfig.describe('Built from an allowlist: units and relais for everyone; sellerPhone, notes, links and escrow (its account id only) for the owner. Never a secret.'),
    pickupPoints: z.array(PickupPoint),
    members: z.array(PoolMember).describe('Empty for anonymous viewers'),
    myReservations: z.array(z.unknown()).describe('The viewer\'s own reservations; empty for anonymous viewers'),
    publishedAt: z.string().nullable(),
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
const list = (v: unknown): Loose[] => (Array.isArray(v) ? (v as Loose[]).filter((x) => x !== null && typeof x === 'object') : []);

export const unitView = (u: Loose): z.infer<typeof UnitView> => ({
  id: String(u?.id),
  label: String(u?.label),
  price: String(u?.price),
  ...(u?.quantity === null || num(u?.quantity) ? { quantity: u.quantity as number | null } : {}),
});

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

/** `config` for anyone who may read the pool: units and relais, each field picked. */
export const publicConfigView = (config: unknown): PublicPoolConfig => {
  const c = (config ?? {}) as Record<string, unknown>;
  return {
    ...(Array.isArray(c.units) ? { units: list(c.units).map(unitView) } : {}),
    ...(Array.isArray(c.relais) ? { relais: list(c.relais).map(relaisView) } : {}),
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
    createdAt: pool.createdAt,
    updatedAt: pool.updatedAt,
    revision: Number(row.revision),
  };
};

/** A signed-in reader who is not the owner: the public view plus member names (and their own id only). */
export const memberGroupBuy = (row: PoolRow, members: MemberRow[], points: PickupPointRow[], viewerId: string): GroupBuy => ({
  ...publicGroupBuy(row, points),
  members: members.map((m) => ({
    ...(m.user_id === viewerId ? { userId: m.user_id } : {}),
    displayName: m.display_name,
    role: m.role,
    joinedAt: iso(m.joined_at)!,
  })),
});

/** The owner: every field, the payout account and owner-only config included (never a secret). */
export const ownerGroupBuy = (row: PoolRow, members: MemberRow[], points: PickupPointRow[]): GroupBuy => ({
  ...publicGroupBuy(row, points),
  payoutAccount: row.doc.fields.payoutAccount,
  config: ownerConfigView(row.doc.fields.config),
  members: members.map((m) => ({ userId: m.user_id, displayName: m.display_name, role: m.role, joinedAt: iso(m.joined_at)! })),
});

/** The view this viewer is entitled to: owner, signed-in member/reader, or anonymous. */
export const toGroupBuy = (row: PoolRow, members: MemberRow[], points: PickupPointRow[], viewer: Viewer): GroupBuy => {
  if (viewer.userId === null) return publicGroupBuy(row, points);
  if (viewer.userId === row.organiser_id) return ownerGroupBuy(row, members, points);
  return memberGroupBuy(row, members, points, viewer.userId);
};

/**
 * The pick-up point rows a GROUPS pool shows: one per `config.relais` entry, in order (ids are unique by rule;
 * should an old event break it, the last point of an id wins). FUNDING pools have none. The projector writes
 * exactly these rows, so a view rendered from the fold equals the one read from the read model.
 */
export const pickupPointRowsOf = (pool: ExistingPool): PickupPointRow[] => {
  const relais = pool.type === 'GROUPS' ? (pool.fields.config.relais ?? []) : [];
  return [...new Map(relais.map((r) => [r.id, r])).values()].map((r, i) => ({
    pool_id: pool.id,
    point_id: r.id,
    sort_order: i,
    name: r.name,
    address: r.address ?? null,
    postal_code: r.postalCode ?? null,
    city: r.city ?? null,
    country: r.country ?? null,
    lat: r.lat ?? null,
    lng: r.lng ?? null,
    opening_hours: r.openingHours ?? null,
  }));
};

/**
 * The GroupBuy of a pool as its stream folds it at `revision`: what a command answers, so that each answer
 * shows the state its own event produced, never a later writer's. It equals the read model's view of the same
 * revision (members are the organiser, whom the pools projection records at creation).
 */
export const groupBuyOfPool = (pool: ExistingPool, revision: bigint, viewer: Viewer): GroupBuy =>
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
    [{ pool_id: pool.id, user_id: pool.organiserId, display_name: pool.organiserName, role: 'organiser', joined_at: new Date(pool.createdAt) }],
    pickupPointRowsOf(pool),
    viewer,
  );

/** Anyone may read: published GROUPS pools (not DRAFT, not archived) and LISTED or FEATURED FUNDING pools. */
export const isPubliclyReadable = (row: PoolRow): boolean =>
  row.archived_at === null &&
  ((row.type === 'GROUPS' && row.status !== 'DRAFT') ||
    (row.type === 'FUNDING' && (row.marketplace_visibility === 'LISTED' || row.marketplace_visibility === 'FEATURED')));

export interface PoolFilters {
  tenantId: string;
  /** Pools this user organises… */
  organiserId?: string;
  /** …or, with `includeJoined`, has joined. */
  includeJoined?: boolean;
  type?: string;
  status?: string;
  archived?: boolean;
  page: number;
  limit: number;
}

/** Anything that runs a parameterised query ($1…): a pg Pool. */
export interface SqlRunner {
  query<R>(q: { name?: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

export class PoolReadModel {
  constructor(
    private readonly knex: Knex,
    /** The hot single-pool read goes straight to pg, without the query builder. */
    private readonly sql: SqlRunner = { query: async ({ text, values }) => (await knex.raw(text.replace(/\$\d+/g, '?'), values as never[])) as never },
  ) {}

  async find(id: string): Promise<PoolRow | null> {
    return (await this.knex<PoolRow>(POOL_TABLES.pools).where({ id }).first()) ?? null;
  }

  /**
   * The pool row with its pick-up points and (for a signed-in viewer) its members, in one round trip:
   * the hot path of GET /api/pools/{id}.
   */
  async load(id: string, viewer: Viewer): Promise<{ row: PoolRow; members: MemberRow[]; points: PickupPointRow[] } | null> {
    const members = viewer.userId
      ? `(SELECT coalesce(json_agg(m ORDER BY m.joined_at), '[]') FROM ${POOL_TABLES.members} m WHERE m.pool_id = p.id)`
      : `'[]'::json`;
    const r = await this.sql.query<PoolRow & { _points: PickupPointRow[]; _members: MemberRow[] }>({
      name: viewer.userId ? 'rm_pool_load_members' : 'rm_pool_load',
      text: `SELECT p.*,
         (SELECT coalesce(json_agg(pp ORDER BY pp.sort_order), '[]') FROM ${POOL_TABLES.pickupPoints} pp WHERE pp.pool_id = p.id) AS _points,
         ${members} AS _members
       FROM ${POOL_TABLES.pools} p WHERE p.id = $1`,
      values: [id],
    });
    const found = r.rows[0];
    if (!found) return null;
    const { _points, _members, ...row } = found;
    return { row, points: _points, members: _members };
  }

  async view(row: PoolRow, viewer: Viewer): Promise<GroupBuy> {
    const [members, points] = await Promise.all([
      viewer.userId ? this.knex<MemberRow>(POOL_TABLES.members).where({ pool_id: row.id }).orderBy('joined_at') : Promise.resolve([]),
      this.knex<PickupPointRow>(POOL_TABLES.pickupPoints).where({ pool_id: row.id }),
    ]);
    return toGroupBuy(row, members, points, viewer);
  }

  async list(filters: PoolFilters, viewer: Viewer): Promise<{ items: GroupBuy[]; total: number }> {
    const q = this.knex<PoolRow>(POOL_TABLES.pools).where('tenant_id', filters.tenantId);
    if (filters.organiserId) {
      const uid = filters.organiserId;
      if (filters.includeJoined) {
        q.where((w) => w.where('organiser_id', uid).orWhereIn('id', this.knex(POOL_TABLES.members).select('pool_id').where('user_id', uid)));
      } else q.where('organiser_id', uid);
    }
    if (filters.type) q.where('type', filters.type);
    if (filters.status) q.where('status', filters.status);
    if (filters.archived === true) q.whereNotNull('archived_at');
    if (filters.archived === false) q.whereNull('archived_at');
    const [{ count }] = (await q.clone().count<{ count: string }[]>({ count: '*' })) as [{ count: string }];
    const rows = await q
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(filters.limit)
      .offset((filters.page - 1) * filters.limit);
    if (rows.length === 0) return { items: [], total: Number(count) };
    const ids = rows.map((r) => r.id);
    const [members, points] = await Promise.all([
      this.knex<MemberRow>(POOL_TABLES.members).whereIn('pool_id', ids).orderBy('joined_at'),
      this.knex<PickupPointRow>(POOL_TABLES.pickupPoints).whereIn('pool_id', ids),
    ]);
    const items = rows.map((r) =>
      toGroupBuy(
        r,
        members.filter((m) => m.pool_id === r.id),
        points.filter((p) => p.pool_id === r.id),
        viewer,
      ),
    );
    return { items, total: Number(count) };
  }
}
