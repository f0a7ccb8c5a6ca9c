import type { Request, RequestHandler } from 'express';

/** Which part of a request could not be read: the JSON body, or the query string. */
export type InputPart = 'body' | 'query';

const DEFERRED = Symbol('deferred input errors');
type WithDeferred = Request & { [DEFERRED]?: Partial<Record<InputPart, unknown>> };

/**
 * Body parsing and input sanitising run for every request, before any route is known. Their failures wait here
 * instead of answering at once, so a route decides when they count: after its white-label gate (a gated route
 * with the toggle off is a 404 whatever it is sent), and not at all for a route that reads no body (logout).
 */
export const deferInputError = (req: Request, part: InputPart, error: unknown): void => {
  const r = req as WithDeferred;
  (r[DEFERRED] ??= {})[part] ??= error;
};

export const deferredInputError = (req: Request, part: InputPart): unknown => (req as WithDeferred)[DEFERRED]?.[part];

/** For handlers outside the route kit (unknown routes, the sandbox ledger): a deferred failure answers as it always did. */
export const rethrowDeferredInput: RequestHandler = (req, _res, next) => next(deferredInputError(req, 'body') ?? deferredInputError(req, 'query'));
