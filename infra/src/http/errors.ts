import { LedgerRejectedError } from '../ledger/gateway';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from '@cagnotte/domain';
import { errorBody, errorBody as baseErrorBody } from './envelope';
import { isDatabaseOutage } from '../db/outage';
import type { Logger } from '../logger';
import { requestContextOf } from './request-context';
import { routeLabelOf } from './route-label';

export class RateLimitedError extends AppError {
  readonly kind = 'rate_limited';
  /** @param limiter names the limit refused (the `limiter` label of rate_limit_refusals_total). */
  constructor(
    readonly retryAfterSeconds: number,
    readonly limiter = 'unnamed',
  ) {
    super('rate_limited', 'Too many requests, retry later');
  }
}

/** A body over a route's own limit (the app-wide limit is body-parser's). */
export class PayloadTooLargeError extends AppError {
  readonly kind = 'payload_too_large';
  constructor(readonly limitBytes: number) {
    super('payload_too_large', `Request body too large (at most ${limitBytes} bytes)`);
  }
}

export const STATUS_BY_KIND: Record<AppError['kind'], number> = {
  validation: 400,
  illegal_state: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

/** The request's id (set first thing by the base app), carried by every error answer. */
const requestIdOf = (res: { getHeader(name: string): unknown }): string | undefined => {
  const id = res.getHeader('X-Request-Id');
  return typeof id === 'string' ? id : undefined;
};

export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json(errorBody(`No route for ${req.method} ${req.path}`, 'route_not_found', undefined, requestIdOf(res)));
};

interface BodyParserError {
  type?: string;
  status?: number;
  statusCode?: number;
}

/**
 * The one place an error becomes an HTTP answer. A database outage is a 503 with Retry-After; unknown errors are
 * logged and answered 500 without detail.
 */
export const errorHandler =
  (logger: Logger, onRateLimited?: (limiter: string) => void): ErrorRequestHandler =>
  (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    const requestId = requestIdOf(res);
    // What each error line says of its request: its ids (whether or not the logger reads the request context) and route.
    const context = requestContextOf(req);
    const about = () => ({
      requestId,
      ...(context ? { traceId: context.traceId, spanId: context.spanId } : {}),
      method: req.method,
      route: routeLabelOf(req),
      path: req.path.slice(0, 200),
    });
    const errorBody = (error: string, code: string, errors?: Record<string, string[]>) => baseErrorBody(error, code, errors, requestId);
    if (err instanceof AppError) {
      const status = STATUS_BY_KIND[err.kind];
      if (err instanceof RateLimitedError) {
        res.setHeader('Retry-After', String(err.retryAfterSeconds));
        onRateLimited?.(err.limiter);
      }
      const fields = 'errors' in err ? (err as { errors?: Record<string, string[]> }).errors : undefined;
      return res.status(status).json(errorBody(err.message, err.code, fields));
    }
    // The ledger refused a transaction the service built and signed (its own, not a client's: those are answered by
    // their routes): not the client's fault, retried with a fresh transaction.
    if (err instanceof LedgerRejectedError) {
      logger.warn({ ...about(), err }, 'the ledger refused a transaction of the service');
      res.setHeader('Retry-After', '5');
      const codes = [err.resultCodes.transaction, ...(err.resultCodes.operations ?? [])].filter((c): c is string => !!c);
      return res.status(503).json(errorBody('The ledger refused the service’s transaction: retry shortly', 'ledger_rejected', codes.length ? { ledger: codes } : undefined));
    }
    const bp = err as BodyParserError;
    if (bp && typeof bp === 'object' && typeof bp.type === 'string') {
      switch (bp.type) {
        case 'entity.parse.failed':
          return res.status(400).json(errorBody('Malformed JSON body', 'malformed_json', { body: ['is not valid JSON'] }));
        case 'entity.too.large':
          return res.status(413).json(errorBody('Request body too large', 'payload_too_large'));
        case 'encoding.unsupported':
        case 'charset.unsupported':
          return res.status(415).json(errorBody('Unsupported body encoding', 'unsupported_encoding'));
        case 'request.aborted':
          return res.status(400).json(errorBody('Request aborted', 'request_aborted'));
      }
    }
    // Anything else that carries a client-error status (e.g. a gzip body that does not inflate) stays a 4xx.
    const status = bp && typeof bp === 'object' ? (bp.status ?? bp.statusCode) : undefined;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return res.status(status).json(errorBody('Bad request', status === 415 ? 'unsupported_media_type' : 'bad_request'));
    }
    if (err instanceof URIError) return res.status(400).json(errorBody('Malformed URL', 'malformed_url'));
    // The database could not be reached (on any route, not only where a lookup says so): the client's to retry.
    if (isDatabaseOutage(err)) {
      logger.warn({ ...about(), err }, 'database unreachable');
      res.setHeader('Retry-After', '5');
      return res.status(503).json(errorBody('The database could not be reached: retry shortly', 'service_unavailable'));
    }
    logger.error({ ...about(), err }, 'unhandled error');
    return res.status(500).json(errorBody('Internal error', 'internal_error'));
  };
