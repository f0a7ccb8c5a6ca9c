import { z } from 'zod';
import { event } from '../define';
import { CountryCode, DecimalAmount, Id, IsoDate, Percent } from '../common';

// Identity: tenants (stream `tenant-<slug>`) and accounts (stream `account-<userId>`, shared with the
// personas, ledger and mandates features: see domain/src/identity/account-stream.ts for the map).

export const Role = z.enum(['user', 'organiser']);
export type Role = z.infer<typeof Role>;
export const AccountType = z.enum(['CONSUMER', 'BUSINESS']);
export type AccountType = z.infer<typeof AccountType>;

export const TenantCreated = event(
  'TenantCreated',
  1,
  z
    .object({
      tenantId: Id,
      slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/),
      name: z.string().min(1).max(200),
      whiteLabel: z.boolean(),
      approvedOrigins: z.array(z.string().url()).max(50),
      createdAt: IsoDate,
    })
    .strict(),
);

/**
 * A tenant's commercial settings, set by an operator (`pnpm cli tenant-settings`). Each field present replaces the
 * tenant's value; an absent field keeps it (the service's default until first set).
 */
export const TenantSettings = z
  .object({
    /** How long a PENDING reservation holds its units before it expires unpaid. */
    reservationTtlSeconds: z.number().int().min(60).max(7 * 86_400).optional(),
    /** The paid listing's fee schedule, in the stablecoin; "0" lists for free. */
    listingFees: z.object({ LISTED: DecimalAmount, FEATURED: DecimalAmount }).strict().optional(),
    /** A delist refunds the listing fee when it comes within this many hours of the listing and before any paid reservation. */
    delistRefundWindowHours: z.number().int().min(0).max(24 * 365).optional(),
    /** The platform's fee on what a successful pool releases, in percent (0–100, two decimals). */
    platformFeePercent: Percent.optional(),
    /** Days a buyer has from delivery to confirm receipt or dispute before the reservation is accepted on its own. */
    inspectionDays: z.number().int().min(1).max(60).optional(),
    /** Days an organiser has to answer a dispute; a contested dispute lapses to the buyer as long after the contest. */
    disputeResponseDays: z.number().int().min(1).max(60).optional(),
  })
  .strict();
export type TenantSettings = z.infer<typeof TenantSettings>;

/** Version 2: the escrow settings (`platformFeePercent`, `inspectionDays`, `disputeResponseDays`); version 1 data reads as is. */
export const TenantSettingsChanged = event('TenantSettingsChanged', 2, z.object({ tenantId: Id, settings: TenantSettings, changedAt: IsoDate }).strict());

/**
 * An operator made an account of the tenant one of its auditors: they read every pool's full history and its state at
 * any point (docs/audit.md). Recorded on the tenant's stream, which decides who its auditors are.
 */
export const TenantAuditorGranted = event('TenantAuditorGranted', 1, z.object({ tenantId: Id, userId: Id, grantedAt: IsoDate }).strict());
export const TenantAuditorRevoked = event('TenantAuditorRevoked', 1, z.object({ tenantId: Id, userId: Id, revokedAt: IsoDate }).strict());

/**
 * An operator verified the tenant as a business (`pnpm cli tenant verify`): only then are live API keys (`sk_live_…`)
 * issued to it (docs/v1.md). Withdrawn, no new live key is issued; the keys already issued stay until revoked.
 */
export const TenantVerified = event('TenantVerified', 1, z.object({ tenantId: Id, verifiedAt: IsoDate, note: z.string().max(500).nullable() }).strict());
export const TenantVerificationWithdrawn = event('TenantVerificationWithdrawn', 1, z.object({ tenantId: Id, withdrawnAt: IsoDate, note: z.string().max(500).nullable() }).strict());


export const AccountRegistered = event(
  'AccountRegistered',
  1,
  z
    .object({
      userId: Id,
      tenantId: Id,
      email: z.string().email(),
      phone: z.string().min(5).max(20).nullable(),
      displayName: z.string().max(200),
      role: Role,
      accountType: AccountType,
      country: CountryCode,
      currency: z.literal('EUR'),
      timezone: z.string().min(1).max(64),
      signupSource: z.string().max(64),
      registeredAt: IsoDate,
    })
    .strict(),
);


/** Audit record of a password reset (the hash itself never enters the log). */
export const PasswordResetCompleted = event(
  'PasswordResetCompleted',
  1,
  z.object({ userId: Id, sessionsRevoked: z.number().int().nonnegative(), ip: z.string().max(64).nullable(), resetAt: IsoDate }).strict(),
);
