import { UnavailableError } from '@cagnotte/domain';

/** Socket-level failures: the database host refused, dropped or never answered the connection. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** PostgreSQL SQLSTATEs of a server going away or full: admin/crash shutdown, cannot connect now, too many connections. */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
/** What pg and knex say when a connection dies or none can be had. */
const MESSAGES = /Connection terminated|connection error|Unable to acquire a connection|Connection ended|Cannot use a pool after calling end|Knex: Timeout acquiring a connection/i;

/**
 * True when an error says the database could not be reached (an outage), as opposed to a query that the
 * database answered with an error (our bug, or a constraint). An outage is the client's to retry: 503.
 */
export const isDatabaseOutage = (error: unknown): boolean => {
  if (error === null || typeof error !== 'object') return false;
  const e = error as { code?: unknown; name?: unknown; message?: unknown; errors?: unknown };
  if (Array.isArray(e.errors) && e.errors.some(isDatabaseOutage)) return true; // AggregateError of one connect per address
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || SERVER_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  if (e.name === 'KnexTimeoutError') return true;
  return typeof e.message === 'string' && MESSAGES.test(e.message);
};

/**
 * Runs a lookup a request depends on. An outage becomes a 503 (`service_unavailable`), never a "not found"
 * or a 400: a missing answer is not a negative answer. Any other error is rethrown as it is.
 */
export const lookupOrUnavailable = async <T>(lookup: () => Promise<T>): Promise<T> => {
  try {
    return await lookup();
  } catch (error) {
    if (isDatabaseOutage(error)) throw new UnavailableError('service_unavailable', 'The database could not be reached: retry shortly');
    throw error;
  }
};
