import { z } from 'zod';

export const OrganiserGrantSchema = z
  .object({
    grantId: z.string().uuid(),
    status: z.enum(['AWAITING_SIGNATURE', 'SETTLED']),
    xdr: z.string().nullable().describe('Unsigned payment (base64 XDR), rebuilt with a fresh sequence number on every read while AWAITING_SIGNATURE; null once settled'),
    txHash: z.string().nullable().describe('While awaiting: the hash the signed transaction will have (signatures do not change it). Once settled: the paying transaction'),
    networkPassphrase: z.string(),
    payment: z.object({
      source: z.string().describe('Your linked ledger account'),
      destination: z.string().describe('The platform account'),
      asset: z.object({ code: z.string(), issuer: z.string() }),
      amount: z.string().describe('Exactly 1.0000000'),
      memoHash: z.string().describe('Hex MEMO_HASH binding the payment to this grant'),
    }),
    expiresAt: z.string().nullable().describe("The unsigned transaction's time bound; read the grant again for a fresh one"),
    preparedAt: z.string(),
    settledAt: z.string().nullable(),
  })
  .describe('OrganiserGrant');

/** What the view shows of a grant: the read model's document, or the grant a command has just decided. */
export interface GrantFacts {
  grantId: string;
  status: 'AWAITING_SIGNATURE' | 'SETTLED';
  ledgerAccount: string;
  destination: string;
  assetCode: string;
  assetIssuer: string;
  amount: string;
  memoHash: string;
  preparedAt: string;
  settledAt: string | null;
  txHash: string | null;
}

/** The unsigned fee payment the ledger gateway builds for an awaiting grant. */
export interface BuiltPayment {
  xdr: string;
  hash: string;
  expiresAt: string;
}

/**
 * The grant as the API shows it. While awaiting signature the caller passes the payment it has just built
 * (the ledger gateway rebuilds it on every read, with a fresh sequence number); once settled, none is needed.
 */
export const organiserGrantView = (grant: GrantFacts, networkPassphrase: string, payment: BuiltPayment | null): z.infer<typeof OrganiserGrantSchema> => {
  const base = {
    grantId: grant.grantId,
    status: grant.status,
    networkPassphrase,
    payment: {
      source: grant.ledgerAccount,
      destination: grant.destination,
      asset: { code: grant.assetCode, issuer: grant.assetIssuer },
      amount: grant.amount,
      memoHash: grant.memoHash,
    },
    preparedAt: grant.preparedAt,
    settledAt: grant.settledAt,
  };
  if (grant.status === 'SETTLED') return { ...base, xdr: null, txHash: grant.txHash, expiresAt: null };
  if (!payment) throw new Error(`grant ${grant.grantId} awaits signature: its view needs the payment built for it`);
  return { ...base, xdr: payment.xdr, txHash: payment.hash, expiresAt: payment.expiresAt };
};
