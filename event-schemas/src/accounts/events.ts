import { z } from 'zod';
import { event } from '../define';
import { Id, IsoDate } from '../common';

// /v1 accounts: a partner's end customer is an identity account (`account-<userId>`, AccountRegistered first). These
// events say what the partner added to it; they live in the account's stream (domain/src/identity/account-stream.ts).

/** A partner's metadata: up to 50 string keys (Stripe-like), values up to 500 characters. */
export const PartnerMetadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');
export type PartnerMetadata = z.infer<typeof PartnerMetadata>;

/**
 * A partner created the account through `/v1/accounts` (an API key, or an organiser's session): recorded right after
 * its AccountRegistered, in the same append. The account has no password: it signs in to /api after a password reset.
 * `livemode` is the key's mode (a key of the other mode never finds it); `createdVia` the key's id (`key_…` without
 * its prefix), null for a session.
 */
export const AccountCreatedByPartner = event(
  'AccountCreatedByPartner',
  1,
  z
    .object({
      userId: Id,
      tenantId: Id,
      livemode: z.boolean(),
      createdVia: z.string().min(1).max(100).nullable(),
      metadata: PartnerMetadata,
      createdAt: IsoDate,
    })
    .strict(),
);

/**
 * The partner changed the account's name or metadata (`POST /v1/accounts/{id}`). An absent field is unchanged;
 * `metadata` is the whole metadata after the change (a key set to "" in the request is gone from it).
 */
export const AccountProfileUpdated = event(
  'AccountProfileUpdated',
  1,
  z
    .object({
      userId: Id,
      /** The account's mode when a partner created it (absent for a signup's: the deployment's). */
      livemode: z.boolean().optional(),
      displayName: z.string().min(1).max(200).optional(),
      metadata: PartnerMetadata.optional(),
      updatedAt: IsoDate,
    })
    .strict(),
);

export const accountPartnerEvents = [AccountCreatedByPartner, AccountProfileUpdated] as const;
