import { UnavailableError } from '@cagnotte/domain';
import { LedgerUnavailableError } from './gateway';

/** A ledger that does not answer is a 503 to the client, never a 500. */
export const ledgerCall = async <T>(fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof LedgerUnavailableError) throw new UnavailableError('ledger_unavailable', 'The ledger did not answer; retry shortly');
    throw e;
  }
};
