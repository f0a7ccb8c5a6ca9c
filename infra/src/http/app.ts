import express, { type Express, type Request, type Response, type Router } from 'express';
import { errorHandler, notFoundHandler } from './errors';
import { sanitizeInput } from './sanitize';
import { deferInputError, rethrowDeferredInput } from './deferred-input';
import type { Logger } from '../logger';
import { attachRequestContext, bindToRequestContext, requestContextFrom, requestContextOf, runWithRequestContext } from './request-context';
import { routeLabelOf } from './route-label';

const RAW_BODY = Symbol('rawBody');

/** The JSON body's bytes exactly as received, or undefined when no JSON body was parsed. */
export const rawBodyOf = (req: Request): Buffer | undefined => (req as { [RAW_BODY]?: Buffer })[RAW_BODY];

export interface BaseAppOptions {
  logger: Logger;
  bodyLimitBytes: number;
  trustProxy: boolean;
  /** Told of each 429 answered, by limiter: the process's metrics. */
  onRateLimited?: (limiter: string) => void;
}

const STARTED = Symbol('request started');
/** Probes and scrapes answer every few seconds: their access lines are debug, not info. */
const QUIET_ROUTES = new Set(['/livez', '/readyz', '/metrics']);

/**
 * The access log: one line per request once answered (or abandoned by the client), at info. What it names is
 * chosen, never dumped: no header, no query string, no body (the Authorization header, cookies and `?code=`/`?token=`
 * secrets cannot reach it); the route template, not the path, where a route matched.
 */
const accessLine = (logger: Logger) =>
  function (this: Response) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the response the event is about: one listener for every request
    const res = this;
    const req = res.req;
    const aborted = !res.writableFinished;
    // Once per request: 'finish' when answered, else 'close' when the client went away first.
    const started = (res as { [STARTED]?: number | null })[STARTED];
    if (started === null || started === undefined) return;
    (res as { [STARTED]?: number | null })[STARTED] = null;
    const route = routeLabelOf(req);
    const level = QUIET_ROUTES.has(route) ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const c = requestContextOf(req);
    logger[level](
      {
        requestId: c?.requestId,
        traceId: c?.traceId,
        spanId: c?.spanId,
        ...(c?.parentSpanId ? { parentSpanId: c.parentSpanId } : {}),
        method: req.method,
        route,
        ...(route === 'unmatched' ? { path: req.path.slice(0, 200) } : {}),
        status: aborted ? null : res.statusCode,
        ...(aborted ? { aborted: true } : {}),
        ms: Math.round((performance.now() - started) * 100) / 100,
        tenant: c?.tenant ?? null,
        ...(c?.userId ? { userId: c.userId } : {}),
      },
      'request',
    );
  };

/**
 * The express shell every app shares: request ids, JSON bodies with a size limit, security headers,
 * then the given routers, then the envelope for unknown routes and errors.
 */
export const createBaseApp = (o: BaseAppOptions, mount: (app: Express) => void): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', o.trustProxy);
  app.set('query parser', 'simple');
  const logAccess = accessLine(o.logger);
  app.use((req, res, next) => {
    // A well-formed X-Request-Id is kept (a proxy's or a partner's own), else a fresh UUID; the W3C trace continued
    // or started, with this request's span: request-context.ts.
    const { context, traceparent } = requestContextFrom(req.headers);
    attachRequestContext(req, context);
    res.setHeader('X-Request-Id', context.requestId);
    res.setHeader('traceparent', traceparent);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    (res as { [STARTED]?: number | null })[STARTED] = performance.now();
    res.once('finish', logAccess);
    res.once('close', logAccess);
    // Everything that runs for this request from here (handlers, services, the error handler) logs its ids.
    runWithRequestContext(context, next);
  });
  const json = express.json({
    limit: o.bodyLimitBytes,
    strict: false,
    type: ['application/json', 'application/*+json'],
    // The bytes as received (no copy): a route that checks a signature over the body reads them (rawBodyOf).
    verify: (req, _res, buf) => {
      (req as { [RAW_BODY]?: Buffer })[RAW_BODY] = buf;
    },
  });
  // A body that does not parse is held back (see deferred-input.ts); body-parser has read it off the socket already.
  app.use((req, res, next) => {
    // No body at all (most GETs): nothing to read, as body-parser itself would conclude after more checks.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
      req.body = undefined;
      return next();
    }
    // The body arrives on the socket's callbacks: the rest of the chain runs back in the request's context.
    json(
      req,
      res,
      bindToRequestContext((err?: unknown) => {
        if (err) {
          deferInputError(req, 'body', err);
          req.body = undefined;
        }
        next();
      }),
    );
  });
  app.use(sanitizeInput);
  mount(app);
  app.use(rethrowDeferredInput, notFoundHandler);
  app.use(errorHandler(o.logger, o.onRateLimited));
  return app;
};

export const newRouter = (): Router => express.Router({ strict: false, caseSensitive: true });
