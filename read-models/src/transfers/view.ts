import { z } from 'zod';
import { acctId, trId } from '../accounts/ids';
import type { V1TransferDoc } from './fold';

export const V1TransferStatusSchema = z
  .enum(['requires_signature', 'submitted', 'settled', 'failed', 'canceled'])
  .describe('requires_signature: sign `unsignedXdr` and submit it before `expiresAt`; submitted: the ledger has not answered yet; settled, failed, canceled: final');

export const V1Transfer = z
  .object({
    id: z.string().describe('`tr_…`'),
    object: z.literal('transfer'),
    livemode: z.boolean(),
    created: z.string(),
    status: V1TransferStatusSchema,
    from: z.string().describe('`acct_…`: the sender, whose wallet signs'),
    fromWallet: z.string(),
    to: z.string().describe('`acct_…` of the tenant, or a Stellar address (G…)'),
    toWallet: z.string(),
    amount: z.string().describe('Decimal string (at most 7 decimals), never a float'),
    currency: z.literal('EUR'),
    memo: z.string().nullable(),
    unsignedXdr: z.string().nullable().describe('The payment to sign with the sender’s key (while requires_signature)'),
    txHash: z.string().describe('The hash of the transaction built: the signed one must have it'),
    expiresAt: z.string().describe('The transaction’s upper time bound: the ledger refuses it after'),
    submittedAt: z.string().nullable(),
    settledAt: z.string().nullable(),
    ledger: z.number().int().nullable(),
    failureCode: z.string().nullable().describe('The ledger’s result code: `op_underfunded`, `op_no_trust`, `tx_bad_seq`, `tx_too_late`…'),
  })
  .describe('V1Transfer');
export type V1Transfer = z.infer<typeof V1Transfer>;

export type V1TransferFacts = Omit<V1TransferDoc, 'revision' | 'tenantId' | 'createdVia' | 'resultCodes' | 'endedAt'>;

export const toV1Transfer = (t: V1TransferFacts): V1Transfer => ({
  id: trId(t.transferId),
  object: 'transfer',
  livemode: t.livemode,
  created: t.createdAt,
  status: t.status,
  from: acctId(t.fromUserId),
  fromWallet: t.fromWallet,
  to: t.to.kind === 'account' ? acctId(t.to.userId) : t.to.wallet,
  toWallet: t.to.wallet,
  amount: t.amount,
  currency: t.currency,
  memo: t.memo,
  unsignedXdr: t.status === 'requires_signature' ? t.unsignedXdr : null,
  txHash: t.txHash,
  expiresAt: t.expiresAt,
  submittedAt: t.submittedAt,
  settledAt: t.settledAt,
  ledger: t.ledger,
  failureCode: t.failureCode,
});
