import type { ReservationFacts, ReservationStatus } from './view';
import type { ReservationEscrowFacts } from './escrow-facts';

/** The reservations read model's table (migrations 017, 020, 023): a row per reservation, folded by fold.ts. */
export const RESERVATION_TABLES = { reservations: 'rm_reservations' } as const;

/** A row as it is read back (pg gives timestamptz as Date, jsonb parsed, bigint as string). */
export interface ReservationRow {
  id: string;
  pool_id: string;
  tenant_id: string;
  buyer_id: string;
  buyer_name: string;
  status: ReservationStatus;
  lines: ReservationFacts['lines'];
  pledge: string | null;
  amount: string;
  /** Migration 023 (absent in rows read before it: none). */
  deposit_fee?: string;
  relais_id: string | null;
  /** Why its point became unavailable (migration 036); null (or absent before it) while the point takes its parcel. */
  pickup_point_unavailable?: { reason: NonNullable<ReservationFacts['pickupPointUnavailable']>['reason'] } | null;
  placed_at: Date | string;
  expires_at: Date | string;
  signed: ReservationFacts['signed'];
  payment: ReservationFacts['payment'];
  late_payments: ReservationFacts['latePayments'];
  ended_at: Date | string | null;
  /** Acceptance, dispute and settlements (migration 020); null (or absent before it) when the escrow did nothing with it yet. */
  escrow?: ReservationEscrowFacts | null;
  revision: string | number | bigint;
}

const iso = (d: Date | string): string => new Date(d).toISOString();

/** The facts a reservation view renders, from a row (timestamps normalised to ISO, as the fold writes them). */
export const factsOfRow = (row: ReservationRow): ReservationFacts => ({
  id: row.id,
  poolId: row.pool_id,
  buyerId: row.buyer_id,
  buyerName: row.buyer_name,
  status: row.status,
  lines: row.lines,
  pledge: row.pledge,
  amount: row.amount,
  depositFee: row.deposit_fee ?? '0.00',
  relaisId: row.relais_id,
  ...(row.pickup_point_unavailable ? { pickupPointUnavailable: { reason: row.pickup_point_unavailable.reason } } : {}),
  placedAt: iso(row.placed_at),
  expiresAt: iso(row.expires_at),
  signed: row.signed,
  payment: row.payment,
  latePayments: row.late_payments ?? [],
  endedAt: row.ended_at === null ? null : iso(row.ended_at),
  acceptance: row.escrow?.acceptance ?? null,
  dispute: row.escrow?.dispute ?? null,
  settlements: row.escrow?.settlements ?? [],
});
