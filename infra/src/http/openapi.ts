import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// The generator names components through `.openapi()`. Zod 4 copies methods onto each schema when it is
// built, so schemas made before this call lack it: components are registered as fresh clones.
extendZodWithOpenApi(z);
const withOpenApi = <T extends z.ZodType>(schema: T): T => schema.clone() as T;
import { ErrorEnvelope, successEnvelope } from './envelope';
import { isV1Post, type RouteDef } from './route';
import { componentStem, deriveOperationId } from './openapi-names';
import { annotateMoneyFields, type JsonSchema } from './openapi-examples';
import { addRequestExamples, addResponseExamples } from './openapi-operation-examples';
import { V1_ERROR_CODES } from './v1';
import { API_ERROR_CODES } from './error-codes';

const STATUS_TEXT: Record<number, string> = {
  400: 'Validation error, malformed JSON, or a transition not allowed in the current state',
  401: 'Missing or invalid bearer credentials',
  403: 'Forbidden: lacking a capability, a role or an account type',
  404: 'Missing, in another tenant, owned by someone else, the feature is switched off, or X-Service-Tenant names no tenant (tenant_not_found)',
  409: 'Conflict',
  413: 'Request body too large',
  429: 'Rate limit exceeded (see Retry-After)',
  503: 'A dependency (the ledger, the database) did not answer: retry shortly',
};

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  servers?: { url: string; description: string }[];
}

/** The operationId of a route: its own, else derived from its method and path. */
export const operationIdOf = (def: Pick<RouteDef, 'method' | 'path' | 'operationId'>): string => def.operationId ?? deriveOperationId(def.method, def.path);

/** Every code an error answer can carry, with its meaning: the `/api` routes' and the kit's, and the `/v1` ones registered so far. */
export const documentedErrorCodes = (): Record<string, string> => {
  const all = { ...API_ERROR_CODES, ...V1_ERROR_CODES };
  return Object.fromEntries(Object.keys(all).sort().map((code) => [code, all[code]!]));
};

const IDEMPOTENCY_KEY_TEXT =
  'Retry-safe, even across a server crash: the key is kept with the events the request wrote, in one transaction. The same key and request within 24 h replays the first answer (Idempotent-Replayed: true); another request with the key is a 409 (idempotency_key_reused). Per user, and per mode with an API key (per IP when anonymous); 8 to 128 characters of letters, digits, _ . : -';

const TENANT_TEXT =
  "Tenant slug. When absent: the signed-in user's tenant (an API key's own tenant), else the default tenant. A slug that names no tenant is a 404 `tenant_not_found`; on a route that acts in the signed-in user's own tenant, another tenant's slug finds nothing there (404).";

/** The error envelope as the document shows it: `code` lists the registered codes (documentedErrorCodes). */
const errorSchema = () => {
  const codes = documentedErrorCodes();
  return withOpenApi(ErrorEnvelope).extend({
    code: z
      .enum(Object.keys(codes) as [string, ...string[]])
      .describe('A stable machine-readable code (the `x-enumDescriptions` say what each means). New codes may be added: treat an unknown one by its HTTP status.')
      .meta({ 'x-enumDescriptions': codes }),
  });
};

export interface OpenApiDocument {
  openapi: string;
  paths?: Record<string, Record<string, Record<string, unknown>>>;
  components?: { schemas?: Record<string, JsonSchema> } & Record<string, unknown>;
  [key: string]: unknown;
}

/** The OpenAPI 3.1 document, generated from the same route definitions and zod schemas that serve requests. */
export const buildOpenApiDocument = (defs: RouteDef[], info: OpenApiInfo, components: Record<string, z.ZodType> = {}): OpenApiDocument => {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT or API key',
    description:
      'A session JWT (from POST /api/auth/login/password), or on /v1 an API key of the tenant: `sk_test_…` (test objects, livemode false) or `sk_live_…`. A key acts as its owner, within its scopes (403 `insufficient_scope`); /api refuses keys (401 `api_key_not_allowed`).',
  });
  registry.registerComponent('securitySchemes', 'cookieAuth', {
    type: 'apiKey',
    in: 'cookie',
    name: 'service_session',
    description: 'The browser session set by GET /api/auth/sso/start. Writes authenticated by it must carry an Origin of this service or of an approved origin of the tenant.',
  });
  const ErrorComponent = registry.register('Error', errorSchema());
  for (const [name, schema] of Object.entries(components)) registry.register(name, withOpenApi(schema));

  // A schema without a name of its own is named after the first operation that uses it (`CreatePoolRequest`).
  const named = new Map<z.ZodType, z.ZodType>();
  const nameOf = (schema: z.ZodType, name: string): z.ZodType => {
    if (schema.meta()?.id) return schema;
    let registered = named.get(schema);
    if (!registered) named.set(schema, (registered = registry.register(name, withOpenApi(schema))));
    return registered;
  };

  const seen = new Map<string, string>();
  for (const def of defs) {
    const operationId = operationIdOf(def);
    const where = `${def.method.toUpperCase()} ${def.path}`;
    if (seen.has(operationId)) throw new Error(`operationId ${operationId} of ${where} is also ${seen.get(operationId)}'s: give one of them its own \`operationId\``);
    seen.set(operationId, where);
    const stem = componentStem(operationId);
    const idempotencyRequired = isV1Post(def);
    const responses: Record<string, unknown> = {
      [def.success.status]: {
        description: def.success.description,
        ...(def.success.contentType
          ? { content: { [def.success.contentType]: { schema: def.success.contentType.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' } } } }
          : def.success.schema
            ? { content: { 'application/json': { schema: successEnvelope(nameOf(def.success.schema, `${stem}Response`)) } } }
            : {}),
        ...(def.responseHeaders || def.idempotent
          ? {
              headers: Object.fromEntries(
                Object.entries({
                  ...def.responseHeaders,
                  ...(def.idempotent ? { 'Idempotent-Replayed': '`true` when this is the kept answer to an earlier request with the same Idempotency-Key' } : {}),
                }).map(([k, d]) => [k, { description: d, schema: { type: 'string' } }]),
              ),
            }
          : {}),
      },
    };
    // Every route but one that ignores its input refuses a malformed (400) or oversized (413) body, and resolves the
    // X-Service-Tenant it is sent (404 `tenant_not_found` when it names no tenant): route.ts, mountRoutes.
    const readsInput = !def.ignoresInput;
    const statuses = [...def.errors, ...(readsInput || idempotencyRequired ? [400, 404, 413] : []), ...(def.idempotent ? [409] : [])];
    for (const status of [...new Set(statuses)].sort((a, b) => a - b)) {
      responses[status] = {
        description: status === 409 && def.idempotent && !def.errors.includes(409) ? 'The Idempotency-Key was used for another request (`idempotency_key_reused`)' : (STATUS_TEXT[status] ?? 'Error'),
        content: { 'application/json': { schema: ErrorComponent } },
        ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer' } } } } : {}),
      };
    }
    const tenantText = def.tenant === 'required' ? `${TENANT_TEXT} This route needs a tenant: 404 \`tenant_not_found\` when none resolves.` : TENANT_TEXT;
    registry.registerPath({
      method: def.method,
      path: def.path,
      operationId,
      summary: def.summary,
      ...(def.description ? { description: def.description } : {}),
      tags: def.tags,
      security:
        def.auth === 'required'
          ? [{ bearerAuth: [] }, { cookieAuth: [] }]
          : def.auth === 'optional'
            ? [{ bearerAuth: [] }, { cookieAuth: [] }, {}]
            : [],
      request: {
        ...(def.params ? { params: def.params as z.ZodObject } : {}),
        ...(def.query ? { query: def.query as z.ZodObject } : {}),
        ...(readsInput || def.idempotent || idempotencyRequired
          ? {
              headers: z.object({
                ...(readsInput ? { 'x-service-tenant': z.string().optional().describe(tenantText) } : {}),
                ...(def.idempotent || idempotencyRequired
                  ? {
                      'idempotency-key': idempotencyRequired
                        ? z.string().describe(`Required on every POST /v1 request (400 \`idempotency_key_required\` without it). ${IDEMPOTENCY_KEY_TEXT}`)
                        : z.string().optional().describe(IDEMPOTENCY_KEY_TEXT),
                    }
                  : {}),
              }),
            }
          : {}),
        ...(def.body ? { body: { required: true, content: { 'application/json': { schema: nameOf(def.body, `${stem}Request`) } } } } : {}),
      },
      responses: responses as never,
    });
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const doc = generator.generateDocument({
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: info.servers ?? [{ url: '/', description: 'this server' }],
  }) as unknown as OpenApiDocument;
  annotateMoneyFields(doc);
  addRequestExamples(doc, defs);
  addResponseExamples(doc, defs);
  return doc;
};
