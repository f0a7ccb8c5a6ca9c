import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Request } from 'express';

/**
 * What every log line of one request carries (the request id and its trace), and what the access log adds once the
 * kit knows it (the tenant and the user). One object per request: the base app makes it, the route kit fills it in.
 */
export interface RequestLogContext {
  requestId: string;
  traceId: string;
  spanId: string;
  /** The caller's span (the incoming `traceparent`'s parent id), when it sent a valid one. */
  parentSpanId?: string;
  /** The resolved tenant's slug, once the kit has resolved it. */
  tenant?: string;
  userId?: string;
}

/** An `X-Request-Id` kept as sent: 1 to 128 visible ASCII characters (0x21–0x7E: no space, no control, no byte above). */
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The incoming request id when it is well-formed, else null (the caller then makes a fresh UUID). */
export const validRequestId = (value: unknown): string | null => (typeof value === 'string' && REQUEST_ID.test(value) ? value : null);

/** A W3C trace context (https://www.w3.org/TR/trace-context/#traceparent-header), as read from `traceparent`. */
export interface TraceParent {
  version: string;
  traceId: string;
  parentId: string;
  flags: string;
}

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * Parses a `traceparent` header; null when it is absent or invalid (the request then starts a new trace). Lowercase
 * hex only; version `ff` is invalid; version `00` has exactly four fields; a later version may carry more after a
 * dash (read for its first four, as the recommendation says); an all-zero trace id or parent id is invalid.
 */
export const parseTraceparent = (header: unknown): TraceParent | null => {
  if (typeof header !== 'string' || header.length > 512) return null;
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return null;
  const [, version, traceId, parentId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff') return null;
  if (version === '00' && rest !== undefined) return null;
  if (traceId === ZERO_TRACE || parentId === ZERO_SPAN) return null;
  return { version, traceId, parentId, flags };
};

export const newTraceId = (): string => {
  for (;;) {
    const id = randomBytes(16).toString('hex');
    if (id !== ZERO_TRACE) return id;
  }
};

export const newSpanId = (): string => {
  for (;;) {
    const id = randomBytes(8).toString('hex');
    if (id !== ZERO_SPAN) return id;
  }
};

/**
 * The `traceparent` this service answers (and would send onwards): version 00, the trace continued, this request's
 * own span. Only the sampled bit of the caller's flags is kept (the others are undefined in version 00).
 */
export const formatTraceparent = (traceId: string, spanId: string, flags = '00'): string =>
  `00-${traceId}-${spanId}-${(parseInt(flags, 16) & 0x01).toString(16).padStart(2, '0')}`;

/** A request's ids from its headers: the id kept or made, the trace continued or started, a new span. */
export const requestContextFrom = (headers: Record<string, unknown>): { context: RequestLogContext; traceparent: string } => {
  const parent = parseTraceparent(headers.traceparent);
  const context: RequestLogContext = {
    requestId: validRequestId(headers['x-request-id']) ?? randomUUID(),
    traceId: parent?.traceId ?? newTraceId(),
    spanId: newSpanId(),
    ...(parent ? { parentSpanId: parent.parentId } : {}),
  };
  return { context, traceparent: formatTraceparent(context.traceId, context.spanId, parent?.flags) };
};

/**
 * The current request's context, wherever the code runs in it: the logger's mixin reads it, so every line logged
 * while serving a request (a service's warning deep in a command included) carries its ids without a logger passed
 * down. Stateless plumbing (the store lives with each request), like a symbol: not a registry of anything.
 */
const storage = new AsyncLocalStorage<RequestLogContext>();

export const runWithRequestContext = <T>(context: RequestLogContext, fn: () => T): T => storage.run(context, fn);

/** A callback that runs in the current request's context whoever calls it later (a stream's end, a parser's callback). */
export const bindToRequestContext = <F extends (...args: never[]) => unknown>(fn: F): F => AsyncLocalStorage.bind(fn);

export const currentRequestContext = (): RequestLogContext | undefined => storage.getStore();

/** The fields every log line of the current request carries (none outside a request). */
export const requestLogFields = (): Record<string, string> => {
  const c = storage.getStore();
  return c ? { requestId: c.requestId, traceId: c.traceId, spanId: c.spanId } : {};
};

const CONTEXT = Symbol('request log context');

export const attachRequestContext = (req: Request, context: RequestLogContext): void => {
  (req as { [CONTEXT]?: RequestLogContext })[CONTEXT] = context;
};

/** The request's context as the base app made it (the access log and the error handler read it off the request). */
export const requestContextOf = (req: Request): RequestLogContext | undefined => (req as { [CONTEXT]?: RequestLogContext })[CONTEXT];
