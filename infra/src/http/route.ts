import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response, Router } from 'express';
import { z } from 'zod';
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '@cagnotte/domain';
import { fieldErrorsFromZod } from './envelope';
import type { RateLimiter, RateLimitRule } from './rate-limit';
import { IDEMPOTENCY_HEADER, IdempotencyKeyAnswered, IdempotencyStore, type IdempotencyClaim, type Replay } from './idempotency';
import { gatedPublicTenant, isApprovedOrigin } from './gates';
import { deferredInputError } from './deferred-input';
import { requestContextOf } from './request-context';
import { routePathOf, setRoutePath } from './route-label';
import { looksLikeApiKey, scopeAllows, v1ScopeOf, type ApiKeyAuthenticator, type ApiKeyContext, type V1Access, type V1Resource } from './v1';

export interface AuthContext {
  userId: string;
  tenantId: string;
  sessionId: string;
  deviceId: string;
}

export interface TenantRef {
  id: string;
  slug: string;
  name: string;
  whiteLabel: boolean;
  approvedOrigins: string[];
}

export interface Authenticator {
  /** Verifies a bearer token and its server-side session; throws UnauthorizedError. */
  authenticate(token: string): Promise<AuthContext>;
}

export interface TenantDirectory {
  bySlug(slug: string): Promise<TenantRef | null>;
  byId(id: string): Promise<TenantRef | null>;
}

export interface RequestContext<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  auth: AuthContext | null;
  /** The API key that authenticated a `/v1` request (then `auth` is its owner's), else null. */
  apiKey: ApiKeyContext | null;
  tenant: TenantRef | null;
  ip: string;
  requestId: string;
  /**
   * The request's `Idempotency-Key` on an idempotent route, else null. A command records its answer with it in
   * the transaction of its events (see IdempotencyClaim.recordWithin).
   */
  idempotency: IdempotencyClaim | null;
  req: Request;
  res: Response;
}

/** A success answer: its status (the route's success status when absent), its payload and headers. */
export type RouteAnswer = {
  status?: number;
  data: unknown;
  headers?: Record<string, string>;
  /**
   * On an idempotent route: what a replay of this answer carries instead of `data`. A secret shown once (an API key's)
   * is not kept in the idempotency store: its replay says so instead.
   */
  keep?: unknown;
  /** A document served as is instead of the JSON envelope (an invoice's XML or PDF); not for idempotent routes. */
  raw?: { contentType: string; body: Buffer | string };
};
/**
 * `streamed`: the handler wrote the response itself through `ctx.res` (Server-Sent Events, GET /v1/events/stream) and
 * has ended it or will; the kit sends nothing more. Such a route declares `success.contentType` (for the document)
 * and must not be idempotent. Errors thrown before the first byte are still answered in the envelope.
 */
export type RouteResult = RouteAnswer | { redirect: string; headers?: Record<string, string> } | { streamed: true };

export interface RouteDef<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, P extends z.ZodType = z.ZodType> {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** OpenAPI form: `/api/pools/{id}`. */
  path: string;
  /**
   * The OpenAPI operationId (an SDK's method name): camelCase, unique in the document. When absent it derives from
   * the method and path (openapi-names.ts: `POST /api/pools/{id}/archive` → `archivePool`); a route says its own
   * when that reads badly. Never change a published one: SDKs call it.
   */
  operationId?: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: 'required' | 'optional' | 'none';
  /**
   * How the route takes `X-Service-Tenant`. Every route resolves it the same way (the header's tenant, else the
   * signed-in user's, else the default) and answers 404 `tenant_not_found` for a tenant named that does not exist;
   * `required` also answers 404 when no tenant can be resolved at all. Declaring it documents the header.
   */
  tenant?: 'required' | 'optional';
  body?: B;
  /** The request body the document shows. When absent, one is made from the body's schema (openapi-examples.ts). */
  example?: z.input<B>;
  query?: Q;
  params?: P;
  /**
   * `contentType`: the route answers that document (`raw`) instead of the JSON envelope. `example`: the `data` the
   * document shows; when absent, one is made from `schema` (openapi-examples.ts).
   */
  success: { status: number; description: string; schema: z.ZodType | null; contentType?: string; example?: unknown };
  errors: number[];
  rateLimit?: RateLimitRule;
  /**
   * The white-label gate. It runs right after authentication and before the rate limit and any validation,
   * so with the toggle off the route answers 404 whatever its body, query or request rate. `tenant`: the tenant
   * of `X-Service-Tenant` (else the default); `user`: the signed-in user's tenant; a function finds the tenant
   * itself and throws to refuse. The gated tenant is `ctx.tenant`.
   */
  gate?: 'tenant' | 'user' | ((req: Request) => Promise<TenantRef>);
  /**
   * The route answers whatever it is sent (logout, contract rule 9): a body that does not parse, is too large or holds
   * hostile strings, and an unknown `X-Service-Tenant`, are ignored (`ctx.tenant` is null). Every other route refuses
   * them (400 `malformed_json`, 413 `payload_too_large`, 400; 404 `tenant_not_found`), whether or not it reads a body.
   */
  ignoresInput?: true;
  /** Honour an `Idempotency-Key` header (commands that create or change something). Every `POST /v1/…` requires one. */
  idempotent?: boolean;
  /**
   * A `/v1` route: the resource and access an API key's scopes must allow (403 `insufficient_scope`). Routes under
   * `/v1` take API keys (`Authorization: Bearer sk_test_…|sk_live_…`) as well as sessions; other routes refuse keys.
   */
  v1?: { resource: V1Resource; access: V1Access };
  /** Only a session may call it, not an API key (managing the keys themselves): 403 `session_required`. */
  sessionOnly?: true;
  /** Extra response headers worth documenting. */
  responseHeaders?: Record<string, string>;
  handler: (ctx: RequestContext<z.infer<B>, z.infer<Q>, z.infer<P>>) => Promise<RouteResult>;
}

/** Keeps the inferred types of one route definition. */
export const defineRoute = <B extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, P extends z.ZodType = z.ZodUndefined>(
  def: RouteDef<B, Q, P>,
): RouteDef => def as unknown as RouteDef;

export interface HttpKit {
  authenticator: Authenticator;
  /** API keys for `/v1` (absent: keys are refused as any unknown token). */
  apiKeys?: ApiKeyAuthenticator;
  tenants: TenantDirectory;
  rateLimiter: RateLimiter;
  idempotency: IdempotencyStore;
  defaultTenantSlug: string;
  /** Told of each answer replayed from the idempotency store (the route's path): the process's metrics. */
  onIdempotentReplay?: (route: string) => void;
}

const bearer = (req: Request): string | null => {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : '';
};

/** The first-party browser session set by GET /api/auth/sso/start. */
const sessionCookie = (req: Request): string | null => {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === 'service_session') return part.slice(eq + 1).trim() || null;
  }
  return null;
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A cookie rides along with any cross-site request (SameSite=None), so a cookie-authenticated write must
 * come from a page of this service or of one of the tenant's approved origins (CSRF defence).
 */
const cookieWriteAllowed = async (kit: HttpKit, req: Request, auth: AuthContext): Promise<boolean> => {
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || origin === 'null') return false;
  const host = req.headers.host;
  if (host && (origin === `http://${host}` || origin === `https://${host}`)) return true;
  const tenant = await kit.tenants.byId(auth.tenantId);
  return !!tenant && isApprovedOrigin(tenant.approvedOrigins, origin);
};

export const toExpressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * The tenant of a request: the one `X-Service-Tenant` names, else the signed-in user's, else the default. A tenant
 * named that does not exist is a 404 `tenant_not_found` on every route, reads and writes alike.
 */
const resolveTenant = async (kit: HttpKit, req: Request, auth: AuthContext | null): Promise<TenantRef | null> => {
  const header = req.headers['x-service-tenant'];
  const slug = Array.isArray(header) ? header[0] : header;
  if (slug !== undefined && slug.trim() !== '') {
    const s = slug.trim().toLowerCase();
    const named = /^[a-z0-9][a-z0-9-]{0,62}$/.test(s) ? await kit.tenants.bySlug(s) : null;
    if (!named) throw new NotFoundError('tenant');
    return named;
  }
  if (auth) return kit.tenants.byId(auth.tenantId);
  return kit.tenants.bySlug(kit.defaultTenantSlug);
};

/** The gated tenant, or a 404: an unknown tenant named in the header is `tenant_not_found`, a toggle that is off `resource_not_found`. */
const passGate = async (kit: HttpKit, gate: NonNullable<RouteDef['gate']>, req: Request, auth: AuthContext | null): Promise<TenantRef> => {
  if (typeof gate === 'function') return gate(req);
  if (gate === 'user') {
    if (!auth) throw new UnauthorizedError();
    return gatedPublicTenant(await kit.tenants.byId(auth.tenantId));
  }
  return gatedPublicTenant(await resolveTenant(kit, req, null));
};

export { routePathOf };

/**
 * An answer in the JSON envelope, serialised once and written as is: no ETag (every answer is `Cache-Control:
 * no-store`, so nothing revalidates) and none of res.json's content negotiation. 204 and 304 carry no body.
 */
export const sendJson = (res: Response, status: number, payload: unknown): void => {
  res.statusCode = status;
  if (status === 204 || status === 304) {
    res.removeHeader('Content-Type');
    res.end();
    return;
  }
  const body = JSON.stringify(payload);
  if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
};

/** A route path (`/api/pools/{id}`) as express matches it: case-sensitive, a trailing slash allowed, a parameter one segment. */
const compilePath = (path: string): { pattern: RegExp; names: string[] } => {
  const names: string[] = [];
  const source = path
    .split(/(\{\w+\})/)
    .map((part) => {
      const param = /^\{(\w+)\}$/.exec(part);
      if (!param) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]!);
      return '([^/]+?)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}/?$`), names };
};

/** As express decodes a path parameter: a malformed escape is a 400. */
const decodeParam = (raw: string): string => {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch (e) {
    if (e instanceof URIError) throw Object.assign(new URIError(`Failed to decode param '${raw}'`), { status: 400 });
    throw e;
  }
};

interface MountedRoute {
  method: string;
  pattern: RegExp;
  names: string[];
  expressPath: string;
  handle: (req: Request, res: Response) => Promise<unknown>;
}

/**
 * Mounts route definitions: rate limit, authentication, tenant, then zod validation, then the handler. A gated
 * route checks its gate before everything but authentication, and its rate limit after the gate.
 *
 * One middleware finds the route: the definitions of the request's method, in the order given (the first that
 * matches answers, as with express routes), each path compiled once. HEAD is answered by the GET route; OPTIONS
 * names the methods of the routes of that path (`Allow`), as express's router does.
 */
export const mountRoutes = (router: Router, kit: HttpKit, defs: RouteDef[]): void => {
  const byMethod = new Map<string, MountedRoute[]>();
  const all: MountedRoute[] = [];
  for (const def of defs) {
    const method = def.method.toUpperCase();
    const route: MountedRoute = { method, ...compilePath(def.path), expressPath: toExpressPath(def.path), handle: routeHandler(kit, def) };
    all.push(route);
    const list = byMethod.get(method) ?? [];
    list.push(route);
    byMethod.set(method, list);
  }
  router.use((req: Request, res: Response, next: NextFunction) => {
    const path = req.path;
    const candidates = byMethod.get(req.method === 'HEAD' ? 'GET' : req.method);
    if (candidates) {
      for (const route of candidates) {
        const m = route.pattern.exec(path);
        if (!m) continue;
        const params: Record<string, string> = {};
        try {
          for (let i = 0; i < route.names.length; i++) params[route.names[i]!] = decodeParam(m[i + 1]!);
        } catch (e) {
          next(e);
          return;
        }
        req.params = params;
        setRoutePath(req, route.expressPath);
        route.handle(req, res).catch(next);
        return;
      }
    }
    if (req.method === 'OPTIONS') {
      const methods = new Set(all.filter((r) => r.pattern.test(path)).map((r) => r.method));
      if (methods.has('GET')) methods.add('HEAD');
      if (methods.size > 0) {
        const allow = [...methods].sort().join(', ');
        res.setHeader('Allow', allow);
        res.status(200).send(allow);
        return;
      }
    }
    next();
  });
};

/** Every `POST /v1/…` requires an `Idempotency-Key` (docs/v1.md). */
export const isV1Post = (def: Pick<RouteDef, 'method' | 'path'>): boolean => def.method === 'post' && def.path.startsWith('/v1/');

/** One route's handler, built once at mount. */
const routeHandler = (kit: HttpKit, def: RouteDef) => {
  const v1 = v1ScopeOf(def);
  return async (req: Request, res: Response): Promise<unknown> => {
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const requestId = (res.getHeader('X-Request-Id') as string | undefined) ?? randomUUID();
    if (def.rateLimit && !def.gate) await kit.rateLimiter.hit(def.rateLimit, ip);

    let auth: AuthContext | null = null;
    let apiKey: ApiKeyContext | null = null;
    const token = bearer(req);
    if (def.auth !== 'none' && token !== null) {
      if (token === '') {
        if (def.auth === 'required') throw new UnauthorizedError('Malformed Authorization header', 'invalid_token');
      } else if (looksLikeApiKey(token)) {
        // A key is a credential whatever the route's auth: sent where keys are not taken, it is refused, never ignored.
        if (!v1 || !kit.apiKeys) throw new UnauthorizedError('API keys authenticate /v1 routes only; /api takes sessions', 'api_key_not_allowed');
        apiKey = await kit.apiKeys.authenticate(token);
        auth = { userId: apiKey.ownerId, tenantId: apiKey.tenantId, sessionId: `key:${apiKey.id}`, deviceId: 'api-key' };
        if (def.sessionOnly) throw new ForbiddenError('session_required', 'This operation takes a session, not an API key');
        if (!scopeAllows(apiKey.scopes, v1.resource, v1.access)) {
          throw new ForbiddenError('insufficient_scope', `This API key lacks the scope ${v1.resource}:${v1.access}`);
        }
      } else {
        try {
          auth = await kit.authenticator.authenticate(token);
        } catch (e) {
          if (def.auth === 'required') throw e;
        }
      }
    }
    if (def.auth !== 'none' && token === null) {
      const cookie = sessionCookie(req);
      if (cookie) {
        try {
          const fromCookie = await kit.authenticator.authenticate(cookie);
          if (SAFE_METHODS.has(req.method) || (await cookieWriteAllowed(kit, req, fromCookie))) auth = fromCookie;
        } catch (e) {
          if (def.auth === 'required') throw e;
        }
      }
    }
    if (def.auth === 'required' && !auth) throw new UnauthorizedError();
    // The access log names who asked, once known (request-context.ts).
    const logContext = requestContextOf(req);
    if (logContext && auth) logContext.userId = auth.userId;

    let tenant: TenantRef | null = null;
    if (def.ignoresInput) {
      // Nothing it is sent counts (logout).
    } else if (def.gate) {
      // A user-gated route acts in the user's own tenant: a tenant named must exist, and under another tenant's
      // name the user's own resources are not found (as every read scoped to that tenant answers).
      if (def.gate === 'user' && auth && (await resolveTenant(kit, req, auth))?.id !== auth.tenantId) throw new NotFoundError('resource');
      tenant = await passGate(kit, def.gate, req, auth);
      if (def.rateLimit) await kit.rateLimiter.hit(def.rateLimit, ip);
    } else {
      // Every route: handlers scope what they read and write to `ctx.tenant` (the header's, else the user's).
      tenant = await resolveTenant(kit, req, auth);
      if (!tenant && def.tenant === 'required') throw new NotFoundError('tenant');
    }

    if (logContext && tenant) logContext.tenant = tenant.slug;

    // A key acts in its own tenant only: another tenant named in X-Service-Tenant finds nothing.
    if (apiKey && tenant?.id !== apiKey.tenantId) throw new NotFoundError('tenant');

    // A body that did not parse, is too large or hostile is refused by every route, whether or not it reads one
    // (but logout); a query only where the route reads one.
    const inputError = (def.ignoresInput ? undefined : deferredInputError(req, 'body')) ?? (def.query ? deferredInputError(req, 'query') : undefined);
    if (inputError) throw inputError;
    // Then the header every POST under /v1 carries, before the body's fields are looked at.
    if (isV1Post(def) && req.headers[IDEMPOTENCY_HEADER] === undefined) {
      throw new ValidationError({ 'Idempotency-Key': ['required on every POST under /v1'] }, 'Idempotency-Key header required', 'idempotency_key_required');
    }

    const params = def.params ? def.params.safeParse(req.params) : { success: true as const, data: undefined };
    if (!params.success) throw new NotFoundError('resource');
    const query = def.query ? def.query.safeParse(req.query) : { success: true as const, data: undefined };
    if (!query.success) throw new ValidationError(fieldErrorsFromZod(query.error.issues, 'query'), 'Invalid query parameters');
    let body: unknown = undefined;
    if (def.body) {
      // No JSON body at all validates as {}: routes whose fields are all optional accept an empty request.
      const parsed = def.body.safeParse(req.body ?? {});
      if (!parsed.success) throw new ValidationError(fieldErrorsFromZod(parsed.error.issues));
      body = parsed.data;
    }

    const run = (idempotency: IdempotencyClaim | null) =>
      def.handler({ body, query: query.data, params: params.data, auth, apiKey, tenant, ip, requestId, idempotency, req, res });
    const send = (answer: Replay, replayed: boolean) => {
      for (const [k, v] of Object.entries(answer.headers)) res.setHeader(k, v);
      if (replayed) {
        res.setHeader('Idempotent-Replayed', 'true');
        kit.onIdempotentReplay?.(def.path);
      }
      sendJson(res, answer.status, answer.body);
    };
    const rawKey = req.headers[IDEMPOTENCY_HEADER];
    if ((def.idempotent || isV1Post(def)) && typeof rawKey === 'string') {
      const key = IdempotencyStore.validKey(rawKey);
      // A key's answers are kept apart per mode: the same Idempotency-Key sent with a test key and a live key of one
      // owner are two requests.
      const scope = apiKey ? `u:${apiKey.ownerId}:${apiKey.livemode ? 'live' : 'test'}` : auth ? `u:${auth.userId}` : `ip:${ip}`;
      const claim = kit.idempotency.claim(scope, key, IdempotencyStore.fingerprint(def.method, req.originalUrl, body), def.success.status);
      const kept = await kit.idempotency.replayFor(claim);
      if (kept) return send(kept, true);
      let result: RouteResult;
      try {
        result = await run(claim);
      } catch (e) {
        // Another request with this key committed first (this one rolled back), or got there between our look-up
        // and our decision (which then refused, e.g. "already archived"): its answer is the answer.
        const first = await kit.idempotency.replayFor(claim);
        if (first) return send(first, true);
        if (e instanceof IdempotencyKeyAnswered) throw new Error('an answered Idempotency-Key has no answer', { cause: e });
        throw e;
      }
      if ('redirect' in result || 'streamed' in result) throw new Error('idempotent routes do not redirect or stream');
      const answer = claim.answerOf(result);
      if (claim.recorded) return send(answer, false);
      const forReplay = result.keep !== undefined ? claim.answerOf({ ...result, data: result.keep }) : answer;
      const sent = await kit.idempotency.record(claim, forReplay);
      return sent === forReplay ? send(answer, false) : send(sent, true);
    }
    const result = await run(null);
    if ('streamed' in result) return;
    for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
    if ('redirect' in result) return res.redirect(307, result.redirect);
    if (result.raw) return res.status(result.status ?? def.success.status).type(result.raw.contentType).send(result.raw.body);
    sendJson(res, result.status ?? def.success.status, { success: true, data: result.data });
  };
};
