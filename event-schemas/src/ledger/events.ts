import { z } from 'zod';
import { event } from '../define';
import { Id, IsoDate, StellarAccountId } from '../common';

// Ledger: the user's proven Stellar account. The event lives in the account's stream.

/** The user proved control of a Stellar account by signing a SEP-10 style challenge. */
export const LedgerAccountLinked = event(
  'LedgerAccountLinked',
  1,
  z.object({ userId: Id, ledgerAccount: StellarAccountId, challengeHash: z.string().regex(/^[0-9a-f]{64}$/), linkedAt: IsoDate }).strict(),
);

