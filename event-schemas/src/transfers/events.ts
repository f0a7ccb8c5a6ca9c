import { z } from 'zod';
import { event } from '../define';
import { DecimalAmount, Id, IsoDate, StellarAccountId } from '../common';

// /v1 transfers (stream `transfer-<transferId>`): a non-custodial payment of the stablecoin from an account's wallet,
// built by the service, signed by the account's holder, verified on the ledger. The service never holds the money.
// Every event carries the transfer's `livemode`, so its public event says it without a lookup.

const TxHashHex = z.string().regex(/^[0-9a-f]{64}$/);

/** Where the money goes: another account of the tenant (its linked wallet then), or any Stellar address. */
export const TransferDestination = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('account'), userId: Id, wallet: StellarAccountId }).strict(),
  z.object({ kind: z.literal('address'), wallet: StellarAccountId }).strict(),
]);
export type TransferDestination = z.infer<typeof TransferDestination>;

/**
 * The transfer was built: `unsignedXdr` pays `amount` of the stablecoin from `fromWallet` to the destination, for the
 * sender's next sequence, valid until `expiresAt`; `txHash` is its hash, which the signed transaction must have.
 */
export const TransferCreated = event(
  'TransferCreated',
  1,
  z
    .object({
      transferId: Id,
      tenantId: Id,
      livemode: z.boolean(),
      fromUserId: Id,
      fromWallet: StellarAccountId,
      to: TransferDestination,
      amount: DecimalAmount,
      currency: z.literal('EUR'),
      memo: z.string().max(28).nullable(),
      unsignedXdr: z.string().min(1).max(20_000),
      txHash: TxHashHex,
      expiresAt: IsoDate,
      createdVia: z.string().min(1).max(100).nullable(),
      createdAt: IsoDate,
    })
    .strict(),
);

/** The signed transaction went to the ledger (or its hash was given) and the ledger has not answered it yet. */
export const TransferSubmitted = event(
  'TransferSubmitted',
  1,
  z.object({ transferId: Id, livemode: z.boolean(), txHash: TxHashHex, via: z.enum(['signedXdr', 'txHash']), submittedAt: IsoDate }).strict(),
);

/** The ledger applied the payment. */
export const TransferSettled = event(
  'TransferSettled',
  1,
  z.object({ transferId: Id, livemode: z.boolean(), txHash: TxHashHex, ledger: z.number().int().positive(), settledAt: IsoDate }).strict(),
);

/**
 * The ledger refused the transaction, or applied it as failed: `failureCode` is its first operation's failing code
 * (`op_underfunded`, `op_no_trust`…) or else the transaction's (`tx_bad_seq`, `tx_too_late`…); `resultCodes` all of them.
 */
export const TransferFailed = event(
  'TransferFailed',
  1,
  z
    .object({
      transferId: Id,
      livemode: z.boolean(),
      txHash: TxHashHex,
      ledger: z.number().int().positive().nullable(),
      failureCode: z.string().min(1).max(64),
      resultCodes: z.array(z.string().max(64)).max(110),
      failedAt: IsoDate,
    })
    .strict(),
);

/** The partner cancelled the transfer before it was submitted. */
export const TransferCancelled = event('TransferCancelled', 1, z.object({ transferId: Id, livemode: z.boolean(), cancelledAt: IsoDate }).strict());

export const transferEvents = [TransferCreated, TransferSubmitted, TransferSettled, TransferFailed, TransferCancelled] as const;
