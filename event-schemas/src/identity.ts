import { z } from 'zod';
import { event } from './define';
import { CountryCode, DecimalAmount, Id, IsoDate, StellarAccountId } from './common';
import { MandateKind } from './pools';

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

/**
 * The business identity kept for DAC7 reporting: at signup (register-simple with accountType BUSINESS) or
 * on become-seller. It moves the account to BUSINESS; the role is unchanged.
 */
export const BusinessIdentityCaptured = event(
  'BusinessIdentityCaptured',
  1,
  z
    .object({
      userId: Id,
      companyName: z.string().min(1).max(120),
      siret: z.string().regex(/^\d{14}$/).nullable(),
      taxCountry: CountryCode,
      taxId: z.string().min(4).max(40).nullable(),
      rccm: z.string().min(4).max(40).nullable(),
      via: z.enum(['register', 'become-seller']),
      capturedAt: IsoDate,
    })
    .strict(),
);

/** The user proved control of a Stellar account by signing a SEP-10 style challenge. */
export const LedgerAccountLinked = event(
  'LedgerAccountLinked',
  1,
  z.object({ userId: Id, ledgerAccount: StellarAccountId, challengeHash: z.string().regex(/^[0-9a-f]{64}$/), linkedAt: IsoDate }).strict(),
);

/** A become-organiser grant: the one-time platform fee the user must pay from their linked account. */
export const OrganiserGrantPrepared = event(
  'OrganiserGrantPrepared',
  1,
  z
    .object({
      grantId: Id,
      userId: Id,
      ledgerAccount: StellarAccountId,
      destination: StellarAccountId,
      assetCode: z.string().regex(/^[A-Za-z0-9]{1,12}$/),
      assetIssuer: StellarAccountId,
      amount: DecimalAmount,
      /** Hex of the 32-byte MEMO_HASH that binds the payment to this grant. */
      memoHash: z.string().regex(/^[0-9a-f]{64}$/),
      nonce: Id.nullable(),
      preparedAt: IsoDate,
    })
    .strict(),
);

/** The fee payment was found on the ledger and verified. Appended together with OrganiserRoleGranted. */
export const OrganiserGrantSettled = event(
  'OrganiserGrantSettled',
  1,
  z
    .object({
      grantId: Id,
      userId: Id,
      txHash: z.string().regex(/^[0-9a-f]{64}$/),
      ledger: z.number().int().nonnegative(),
      via: z.enum(['txHash', 'signedXdr']),
      settledAt: IsoDate,
    })
    .strict(),
);

export const RoleGranted = event(
  'RoleGranted',
  1,
  z.object({ userId: Id, role: Role, reason: z.string().max(200), grantId: Id.nullable(), grantedAt: IsoDate }).strict(),
);

export const MandateAccepted = event(
  'MandateAccepted',
  1,
  z
    .object({
      mandateId: Id,
      userId: Id,
      kind: MandateKind,
      version: z.string().min(1).max(40),
      hash: z.string().regex(/^[0-9a-f]{64}$/),
      ip: z.string().max(64).nullable(),
      acceptedAt: IsoDate,
    })
    .strict(),
);

export const MandateRevoked = event(
  'MandateRevoked',
  1,
  z.object({ mandateId: Id, userId: Id, kind: MandateKind, ip: z.string().max(64).nullable(), revokedAt: IsoDate }).strict(),
);

/** Audit record of a password reset (the hash itself never enters the log). */
export const PasswordResetCompleted = event(
  'PasswordResetCompleted',
  1,
  z.object({ userId: Id, sessionsRevoked: z.number().int().nonnegative(), ip: z.string().max(64).nullable(), resetAt: IsoDate }).strict(),
);

export const identityEvents = [
  TenantCreated,
  AccountRegistered,
  BusinessIdentityCaptured,
  LedgerAccountLinked,
  OrganiserGrantPrepared,
  OrganiserGrantSettled,
  RoleGranted,
  MandateAccepted,
  MandateRevoked,
  PasswordResetCompleted,
] as const;
