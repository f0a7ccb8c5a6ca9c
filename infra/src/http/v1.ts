import type { Knex } from 'knex';
import { z } from 'zod';
import { ValidationError } from '@cagnotte/domain';
import { decimalInt } from './envelope';

/**
 * The conventions every `/v1` resource follows (docs/v1.md): API keys and their scopes, livemode, prefixed ids,
 * cursor lists newest first, `expand[]`, and the error codes the OpenAPI document lists.
 */

/** What an API key resolves to. The key acts as its owner (an organiser of the tenant): `ctx.auth` is the owner's. */
export interface ApiKeyContext {
  id: string;
  tenantId: string;
  ownerId: string;
  livemode: boolean;
  scopes: string[];
}

export interface ApiKeyAuthenticator {
  /** Resolves `sk_test_…`/`sk_live_…` to its key; throws UnauthorizedError for an unknown, revoked or expired one. */
  authenticate(secret: string): Promise<ApiKeyContext>;
}

export const API_KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9]{16,128}$/;
export const looksLikeApiKey = (token: string): boolean => token.startsWith('sk_test_') || token.startsWith('sk_live_');

export const V1_RESOURCES = ['accounts', 'transfers', 'requests', 'group_buys', 'deals', 'webhooks', 'events', 'api_keys'] as const;
export type V1Resource = (typeof V1_RESOURCES)[number];
export type V1Access = 'read' | 'write';

/** A scope: `*` (everything), `*:read` (read everything), `<resource>:read`, `<resource>:write` (write implies read). */
export const V1Scope = z.union([
  z.literal('*'),
  z.literal('*:read'),
  z.templateLiteral([z.enum(V1_RESOURCES), ':', z.enum(['read', 'write'])]),
]);
export type V1Scope = z.infer<typeof V1Scope>;

/** Whether a key's scopes allow `access` to `resource`. One rule, one place: the HTTP kit asks it for every /v1 route. */
export const scopeAllows = (scopes: readonly string[], resource: V1Resource, access: V1Access): boolean =>
  scopes.some(
    (s) => s === '*' || (access === 'read' && s === '*:read') || s === `${resource}:write` || (access === 'read' && s === `${resource}:read`),
  );

/**
 * The scope a `/v1` route needs: its own declaration, else the path's first segment (`/v1/group-buys/…` →
 * `group_buys`) and the method (GET and HEAD read, anything else writes). Null outside `/v1` (keys are refused there).
 */
export const v1ScopeOf = (def: { path: string; method: string; v1?: { resource: V1Resource; access: V1Access } }): { resource: V1Resource; access: V1Access } | null => {
  if (def.v1) return def.v1;
  const m = /^\/v1\/([a-z-]+)/.exec(def.path);
  if (!m) return null;
  const resource = m[1]!.replace(/-/g, '_') as V1Resource;
  if (!V1_RESOURCES.includes(resource)) throw new Error(`route ${def.path}: /v1/${m[1]} is no known resource; declare its v1 scope`);
  return { resource, access: def.method === 'get' ? 'read' : 'write' };
};

/** The mode of a request's data: the key's; with a session, the deployment's (production is live). */
export const livemodeOf = (ctx: { apiKey?: ApiKeyContext | null }, production: boolean): boolean => (ctx.apiKey ? ctx.apiKey.livemode : production);

// ── Prefixed ids (event-schemas/src/ids.ts) ──────────────────────────────────────────────────────────────────────
export { V1_ID_PREFIXES, fromPrefixedId, toPrefixedId, type V1IdPrefix } from '@cagnotte/event-schemas';
import type { V1IdPrefix } from '@cagnotte/event-schemas';

/** A path parameter of one prefix, described for the OpenAPI document; a malformed one is the object's 404 (the kit). */
export const prefixedIdParam = (prefix: V1IdPrefix) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9a-f]{32}$`))
    .describe(`An id of the form \`${prefix}_<32 hex digits>\``)
    .meta({ example: `${prefix}_3f2a9c1e4b7d4e0f8a6b5c4d3e2f1a0b` });

export const V1Currency = z.literal('EUR').default('EUR').describe('ISO 4217 code. The ledger’s stablecoin is euro-denominated: `EUR` only.');

// ── Lists ───────────────────────────────────────────────────────────────────────────────────────────────────────
const expandValues = z.preprocess(
  (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]),
  z.array(z.string().regex(/^[a-z][a-zA-Z0-9_.]{0,63}$/)).max(10),
);

/**
 * `limit` 1–100 (default 10), `startingAfter` / `endingBefore` (an object id of the list: the page after or before
 * it, newest first), `expand[]`. The query parser keeps `expand[]` as the key: both spellings are read.
 */
export const V1ListQuery = z
  .object({
    limit: decimalInt(1, 100).default(10).describe('How many objects, 1 to 100 (default 10)'),
    startingAfter: z.string().max(80).optional().describe('An object id: the page of objects older than it (the next page)'),
    endingBefore: z.string().max(80).optional().describe('An object id: the page of objects newer than it (the previous page)'),
    'expand[]': expandValues.optional().describe('Fields to expand into nested objects'),
    expand: expandValues.optional().describe('Same as expand[]'),
  })
  .refine((q) => !(q.startingAfter && q.endingBefore), { message: 'give startingAfter or endingBefore, not both', path: ['startingAfter'] });
export type V1ListQuery = z.infer<typeof V1ListQuery>;

/** The `expand[]` values asked, each checked against what the object can expand (else a 400 on `expand`). */
export const expandOf = (query: { 'expand[]'?: string[]; expand?: string[] } | undefined, allowed: readonly string[]): Set<string> => {
  const asked = [...(query?.['expand[]'] ?? []), ...(query?.expand ?? [])];
  const bad = asked.filter((a) => !allowed.includes(a));
  if (bad.length > 0) throw new ValidationError({ expand: [`cannot expand ${bad.join(', ')}: expandable fields are ${allowed.join(', ') || 'none'}`] });
  return new Set(asked);
};

/** `{ object: 'list', items, hasMore, url }`. */
export const v1List = <T extends z.ZodType>(item: T) =>
  z.object({
    object: z.literal('list'),
    items: z.array(item).describe('Newest first'),
    hasMore: z.boolean().describe('Whether another page follows in this direction: pass the last item’s id as startingAfter'),
    url: z.string().describe('The list’s path'),
  });

/**
 * Applies a cursor to a query ordered newest first by a bigint identity column (`seq`): `after` is the cursor's seq
 * for `startingAfter` (older objects), `before` for `endingBefore` (newer objects, read oldest first then reversed by
 * `cursorPage`). Asks one more row than `limit` to know `hasMore`.
 */
export const applyCursor = <T extends Knex.QueryBuilder>(query: T, o: { seqColumn: string; limit: number; after?: string | bigint | null; before?: string | bigint | null }): T => {
  if (o.before != null) return query.where(o.seqColumn, '>', String(o.before)).orderBy(o.seqColumn, 'asc').limit(o.limit + 1) as T;
  if (o.after != null) query.where(o.seqColumn, '<', String(o.after));
  return query.orderBy(o.seqColumn, 'desc').limit(o.limit + 1) as T;
};

/** The page of rows `applyCursor` read: newest first, at most `limit`, and whether more follow. */
export const cursorPage = <R>(rows: R[], limit: number, before?: unknown): { items: R[]; hasMore: boolean } => {
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  return { items: before != null ? page.reverse() : page, hasMore };
};

/** A cursor that names no object of the list is the client's error, on the parameter it came in. */
export const unknownCursor = (param: 'startingAfter' | 'endingBefore'): ValidationError => new ValidationError({ [param]: ['names no object of this list'] });

// ── Errors ──────────────────────────────────────────────────────────────────────────────────────────────────────
/**
 * Every machine `code` a `/v1` operation can answer, with its meaning; the OpenAPI document lists them as the enum
 * of the error envelope's `code`. A resource adds its own here. (`<thing>_not_found` comes from NotFoundError.)
 */
export const V1_ERROR_CODES: Record<string, string> = {
  validation_failed: 'A field is missing or invalid: `param` names the first, `errors` lists them all',
  malformed_json: 'The body is not valid JSON',
  payload_too_large: 'The body is over the size limit',
  unauthorized: 'No credentials, or credentials that are not valid',
  invalid_token: 'The Authorization header is malformed',
  api_key_invalid: 'The API key is unknown, revoked or expired',
  api_key_not_allowed: 'API keys authenticate /v1 only; /api takes sessions',
  insufficient_scope: 'The API key lacks the scope this operation needs',
  session_required: 'This operation takes a session of an organiser, not an API key',
  tenant_not_verified: 'Live keys are issued only to a tenant an operator verified',
  tenant_not_found: 'X-Service-Tenant names no tenant, or another tenant than the key’s',
  idempotency_key_required: 'Every POST under /v1 carries an Idempotency-Key header',
  idempotency_key_invalid: 'The Idempotency-Key is not 8 to 128 characters of letters, digits, _ . : -',
  idempotency_key_reused: 'This Idempotency-Key was used for another request in the last 24 hours',
  rate_limited: 'Too many requests: see Retry-After',
  resource_not_found: 'No such object for this key: missing, another tenant’s, another owner’s or of the other mode',
  api_key_not_found: 'No such API key',
  route_not_found: 'No such route',
  forbidden: 'The caller may not do this',
  service_unavailable: 'A dependency did not answer: retry shortly',
  ledger_rejected: 'The ledger refused the service’s own transaction: retry shortly',
  internal_error: 'An unexpected error (reported): retry later',
};

/** Registers the codes a resource can answer (call at module load of its routes). */
export const registerV1ErrorCodes = (codes: Record<string, string>): void => {
  Object.assign(V1_ERROR_CODES, codes);
};
