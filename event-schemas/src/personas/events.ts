import { z } from 'zod';
import { event } from '../define';
import { CountryCode, DecimalAmount, Id, IsoDate, StellarAccountId } from '../common';
import { Role } from '../identity/events';

// Personas: the seller (business) persona and the organiser grant. Their events live in the account's stream.

/**
 * The business identity kept for DAC7 reporting: at signup (register-simple with accountType BUSINESS) or
 * on become-seller. It moves the account to BUSINESS; the role is unchanged.
 */
export const BusinessIdentityCaptured = event(
  'BusinessIdentityCaptured',
  2,
  z
    .object({
      userId: Id,
      companyName: z.string().min(1).max(120),
      siret: z.string().regex(/^\d{14}$/).nullable(),
      taxCountry: CountryCode,
      taxId: z.string().min(4).max(40).nullable(),
      rccm: z.string().min(4).max(40).nullable(),
      /** Version 2: `partner`, a business account's identity given later through /v1/accounts. Version 1 data reads as is. */
      via: z.enum(['register', 'become-seller', 'partner']),
      capturedAt: IsoDate,
    })
    .strict(),
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

