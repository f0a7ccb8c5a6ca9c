import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// The generator names components through `.openapi()`. Zod 4 copies methods onto each schema when it is
// built, so schemas made before this call lack it: components are registered as fresh clones.
extendZodWithOpenApi(z);
const withOpenApi = <T extends z.ZodType>(schema: T): T => schema.clone() as T;
import { ErrorEnvelope, successEnvelope } from './envelope';
import type { RouteDef } from './route';

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

/** The OpenAPI 3.1 document, generated from the same route definitions and zod schemas that serve requests. */
export const buildOpenApiDocument = (defs: RouteDef[], info: OpenApiInfo, components: Record<string, z.ZodType> = {}) => {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  registry.registerComponent('securitySchemes', 'cookieAuth', {
    type: 'apiKey',
    in: 'cookie',
    name: 'service_session',
    description: 'The browser session set by GET /api/auth/sso/start. Writes authenticated by it must carry an Origin of this service or of an approved origin of the tenant.',
  });
  registry.register('ErrorEnvelope', withOpenApi(ErrorEnvelope));
  for (const [name, schema] of Object.entries(components)) registry.register(name, withOpenApi(schema));
  const tenantHeader = (required: boolean) =>
    z.object({
      'x-service-tenant': (required ? z.string() : z.string().optional()).describe(
        'Tenant slug. When absent: the signed-in user\'s tenant, else the default tenant. A slug that names no tenant is a 404 `tenant_not_found`; on a route that acts in the signed-in user\'s own tenant, another tenant\'s slug finds nothing there (404).',
      ),
    });

  for (const def of defs) {
    const responses: Record<string, unknown> = {
      [def.success.status]: {
        description: def.success.description,
        ...(def.success.contentType
          ? { content: { [def.success.contentType]: { schema: def.success.contentType.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' } } } }
          : def.success.schema
            ? { content: { 'application/json': { schema: successEnvelope(def.success.schema) } } }
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
    for (const status of [...new Set([...def.errors, ...(readsInput ? [400, 404, 413] : []), ...(def.idempotent ? [409] : [])])].sort((a, b) => a - b)) {
      responses[status] = {
        description: status === 409 && def.idempotent && !def.errors.includes(409) ? 'The Idempotency-Key was used for another request (`idempotency_key_reused`)' : (STATUS_TEXT[status] ?? 'Error'),
        content: { 'application/json': { schema: ErrorEnvelope } },
        ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer' } } } } : {}),
      };
    }
    registry.registerPath({
      method: def.method,
      path: def.path,
      summary: def.summary,
      ...(def.description ? { description: def.description } : {}),
      tags: def.tags,
      ...(def.auth === 'required'
        ? { security: [{ bearerAuth: [] }, { cookieAuth: [] }] }
        : def.auth === 'optional'
          ? { security: [{ bearerAuth: [] }, { cookieAuth: [] }, {}] }
          : {}),
      request: {
        ...(def.params ? { params: def.params as z.ZodObject } : {}),
        ...(def.query ? { query: def.query as z.ZodObject } : {}),
        ...(readsInput || def.idempotent
          ? {
              headers: z.object({
                ...(readsInput ? tenantHeader(false).shape : {}),
                ...(def.idempotent
                  ? { 'idempotency-key': z.string().optional().describe('Retry-safe, even across a server crash: the key is kept with the events the request wrote, in one transaction. The same key and request within 24 h replays the first answer (Idempotent-Replayed: true); another request with the key is a 409 (idempotency_key_reused). Per user (per IP when anonymous); 8 to 128 characters of letters, digits, _ . : -') }
                  : {}),
              }),
            }
          : {}),
        ...(def.body ? { body: { required: true, content: { 'application/json': { schema: def.body } } } } : {}),
      },
      responses: responses as never,
    });
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: info.servers ?? [{ url: '/', description: 'this server' }],
  });
};
