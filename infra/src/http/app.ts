import { isUuid } from '@cagnotte/domain';
import { randomUUID } from 'node:crypto';
import express, { type Express, type Request, type Router } from 'express';
import { errorHandler, notFoundHandler } from './errors';
import { sanitizeInput } from './sanitize';
import { deferInputError, rethrowDeferredInput } from './deferred-input';
import type { Logger } from '../logger';

const RAW_BODY = Symbol('rawBody');

/** The JSON body's bytes exactly as received, or undefined when no JSON body was parsed. */
export const rawBodyOf = (req: Request): Buffer | undefined => (req as { [RAW_BODY]?: Buffer })[RAW_BODY];

export interface BaseAppOptions {
  logger: Logger;
  bodyLimitBytes: number;
  trustProxy: boolean;
}

/**
 * The express shell every app shares: request ids, JSON bodies with a size limit, security headers,
 * then the given routers, then the envelope for unknown routes and errors.
 */
export const createBaseApp = (o: BaseAppOptions, mount: (app: Express) => void): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', o.trustProxy);
  app.set('query parser', 'simple');
  app.use((req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && isUuid(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    if (o.logger.isLevelEnabled('debug')) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        o.logger.debug({ id, method: req.method, path: req.path, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'request');
      });
    }
    next();
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
    json(req, res, (err?: unknown) => {
      if (err) {
        deferInputError(req, 'body', err);
        req.body = undefined;
      }
      next();
    });
  });
  app.use(sanitizeInput);
  mount(app);
  app.use(rethrowDeferredInput, notFoundHandler);
  app.use(errorHandler(o.logger));
  return app;
};

export const newRouter = (): Router => express.Router({ strict: false, caseSensitive: true });
