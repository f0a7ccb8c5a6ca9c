import { z } from 'zod';
import { UnavailableError, type OrganiserGrant } from '@cagnotte/domain';
import { LedgerUnavailableError, type LedgerGateway } from './gateway';

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

/** A ledger that does not answer is a 503 to the client, never a 500. */
export const ledgerCall = async <T>(fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof LedgerUnavailableError) throw new UnavailableError('ledger_unavailable', 'The ledger did not answer; retry shortly');
    throw e;
  }
};

export type BuiltPayment = Awaited<ReturnType<LedgerGateway['buildFeePayment']>>;

/**
 * The grant as the API shows it; while awaiting signature, with a freshly built unsigned payment (`built` when the
 * caller has just built this grant's payment itself).
 */
export const organiserGrantView = async (ledger: LedgerGateway, grant: OrganiserGrant, built?: BuiltPayment): Promise<z.infer<typeof OrganiserGrantSchema>> => {
  const base = {
    grantId: grant.grantId,
    status: grant.status,
    networkPassphrase: ledger.settings.networkPassphrase,
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
  const payment = built ?? (await ledgerCall(() => ledger.buildFeePayment(grant.ledgerAccount, grant.amount, grant.memoHash)));
  return { ...base, xdr: payment.xdr, txHash: payment.hash, expiresAt: payment.expiresAt };
};
