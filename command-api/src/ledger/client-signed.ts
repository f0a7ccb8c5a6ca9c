import { ValidationError } from '@cagnotte/domain';
import { LedgerRejectedError, LedgerUnavailableError, ledgerCall, type LedgerGateway } from '@cagnotte/infra';

type Transaction = NonNullable<ReturnType<LedgerGateway['parseEnvelope']>>;

// The fallback path of every client-signed payment (activation fee, listing fee, reservation deposit): the client
// sends `signedXdr` and the service submits it on their behalf, once the route has checked it is exactly what it pays.

/** A `signedXdr` decoded for this network, with its hash; a `txHash` sent beside it must be that hash. */
export const decodeSignedXdr = (ledger: LedgerGateway, signedXdr: string, txHash?: string): { tx: Transaction; hash: string } => {
  const tx = ledger.parseEnvelope(signedXdr);
  if (!tx) throw new ValidationError({ signedXdr: ['is not a transaction envelope for this network'] }, 'Invalid signed transaction', 'invalid_xdr');
  const hash = Buffer.from(tx.hash()).toString('hex');
  if (txHash && txHash !== hash) throw new ValidationError({ txHash: ['does not match signedXdr'] });
  return { tx, hash };
};

/**
 * Submits a client-signed transaction. `unavailable` when the ledger did not answer (the client calls again: it may
 * still land). A refusal is a 400 `ledger_rejected` with Horizon's result codes, unless the transaction is already on
 * the ledger (the client submitted it too): then the caller verifies it like any other.
 */
export const submitClientSigned = async (ledger: LedgerGateway, tx: Transaction, hash: string): Promise<'submitted' | 'unavailable'> => {
  try {
    await ledger.submit(tx);
    return 'submitted';
  } catch (e) {
    if (e instanceof LedgerUnavailableError) return 'unavailable';
    if (!(e instanceof LedgerRejectedError)) throw e;
    if (await ledgerCall(() => ledger.readTransaction(hash))) return 'submitted';
    const codes = [e.resultCodes.transaction, ...(e.resultCodes.operations ?? [])].filter((c): c is string => !!c);
    throw new ValidationError({ signedXdr: codes.length ? codes : [e.message] }, e.message, 'ledger_rejected');
  }
};
