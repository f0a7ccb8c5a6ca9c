import { z } from 'zod';
import { event } from '../define';
import { Id, IsoDate, StellarAccountId } from '../common';

// Ledger: the user's proven Stellar account. The event lives in the account's stream.

/**
 * The user proved control of a Stellar account by signing a SEP-10 style challenge. Version 2: `livemode`, the mode of
 * an account a partner created (/v1/accounts), so its public event says it; absent for a signup's account (the
 * deployment's mode). Version 1 data reads as is.
 */
export const LedgerAccountLinked = event(
  'LedgerAccountLinked',
  2,
  z
    .object({ userId: Id, ledgerAccount: StellarAccountId, challengeHash: z.string().regex(/^[0-9a-f]{64}$/), livemode: z.boolean().optional(), linkedAt: IsoDate })
    .strict(),
);

