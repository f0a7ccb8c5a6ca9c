import type { Request, RequestHandler } from 'express';

const ROUTE_PATH = Symbol('route path');
const ROUTE_PREFIX = Symbol('route prefix');

/** The matched route's path in express form (`/api/pools/:id`), for metrics; undefined when no route of the kit matched. */
export const routePathOf = (req: Request): string | undefined => (req as { [ROUTE_PATH]?: string })[ROUTE_PATH];

export const setRoutePath = (req: Request, path: string): void => {
  (req as { [ROUTE_PATH]?: string })[ROUTE_PATH] = path;
};

/**
 * Marks the requests of a router mounted under `prefix` (the sandbox Horizon): their label is the prefix and the
 * router's own route (`/sandbox/horizon/accounts/:id`), where express alone would say `/accounts/:id`.
 */
export const labelWithPrefix =
  (prefix: string): RequestHandler =>
  (req, _res, next) => {
    (req as { [ROUTE_PREFIX]?: string })[ROUTE_PREFIX] = prefix;
    next();
  };

/**
 * A request's route as metrics and the access log name it: the template, never the raw path (ids and secrets stay
 * out, the label set stays bounded). The kit's route, else a prefixed router's, else an express route of the app
 * (`/health`), else `unmatched`.
 */
export const routeLabelOf = (req: Request): string => {
  const kit = routePathOf(req);
  if (kit) return kit;
  const route = (req.route as { path?: unknown } | undefined)?.path;
  const prefix = (req as { [ROUTE_PREFIX]?: string })[ROUTE_PREFIX];
  if (prefix) return typeof route === 'string' ? `${prefix}${route === '/' ? '' : route}` : `${prefix}/*`;
  return typeof route === 'string' ? route : 'unmatched';
};
