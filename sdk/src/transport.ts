/**
 * The one place a request leaves the SDK: the credentials and tenant headers, an `Idempotency-Key` on every write
 * (made once per call, so its retries carry the same key and the API replays rather than acting twice: /v1 requires
 * it on POST and honours it on its PATCH and DELETE routes too), and the
 * retries themselves: a network failure, 429 and 5xx, after `Retry-After` or an exponential backoff with jitter.
 */
import { randomUUID } from 'node:crypto';
import { CagnotteError } from './errors';

export interface TransportOptions {
  /** `sk_test_…` / `sk_live_…`. */
  apiKey?: string;
  /** A session token (a signed-in user's JWT), instead of an API key. */
  sessionToken?: string;
  /** Sent as `X-Service-Tenant` (a tenant's slug). */
  tenant?: string;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries after the first attempt (default 2; 0 never retries). */
  maxRetries?: number;
  /** The backoff: attempt n waits a random time in [d/2, d] with d = min(maxDelayMs, initialDelayMs·2ⁿ). Default 500 ms and 8 s. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A `Retry-After` longer than this (default 60 s) is not waited for: the answer is returned as it is. */
  maxRetryAfterMs?: number;
}

const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** Statuses worth another attempt: rate limited, or the server failed (501 Not Implemented will not change). */
const retryableStatus = (status: number) => status === 429 || (status >= 500 && status !== 501);

/** `Retry-After` in milliseconds (delay-seconds or an HTTP date), or null when absent or unreadable. */
export const retryAfterMs = (value: string | null, now = Date.now()): number | null => {
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
};

const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/** A fetch that authenticates, keys POSTs and retries: openapi-fetch sends every request through it. */
export const makeTransport = (options: TransportOptions): ((request: Request) => Promise<Response>) => {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const maxRetries = Math.max(0, options.maxRetries ?? 2);
  const initial = options.initialDelayMs ?? 500;
  const max = options.maxDelayMs ?? 8000;
  const maxRetryAfter = options.maxRetryAfterMs ?? 60_000;
  const credential = options.apiKey ?? options.sessionToken;
  const backoff = (attempt: number) => {
    const ceiling = Math.min(max, initial * 2 ** attempt);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  };

  return async (request) => {
    if (credential && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${credential}`);
    if (options.tenant && !request.headers.has('x-service-tenant')) request.headers.set('x-service-tenant', options.tenant);
    // Made here, once per call: every retry below sends this same key.
    if (WRITES.has(request.method) && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', randomUUID());

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await send(request.clone());
      } catch (error) {
        if (request.signal?.aborted || (error as { name?: string })?.name === 'AbortError') throw error;
        if (attempt >= maxRetries) {
          throw new CagnotteError({ status: 0, code: 'connection_failed', message: `${request.method} ${request.url}: no answer (${(error as Error)?.message ?? error})`, cause: error });
        }
        await sleep(backoff(attempt), request.signal);
        continue;
      }
      if (attempt >= maxRetries || !retryableStatus(response.status)) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== null && asked > maxRetryAfter) return response;
      await response.body?.cancel().catch(() => undefined);
      await sleep(asked ?? backoff(attempt), request.signal);
    }
  };
};
