/**
 * What a partner sees in /docs, checked: every JSON request body and 2xx JSON answer shows an example, the example is
 * one its own schema accepts (ajv, JSON Schema 2020-12 as OpenAPI 3.1 says), and no amount reads "string" nor a
 * quantity 0. Where an operation shows no example, Swagger UI makes one from the schema: `viewerSample` is that
 * sample (as swagger-ui's 2020-12 sampler makes it), so the placeholders it would show are named too.
 */
import { Ajv2020 } from 'ajv/dist/2020';

type Schema = { [key: string]: unknown };
type Media = { schema?: Schema; example?: unknown; examples?: Record<string, { value?: unknown }> };
type Operation = {
  operationId?: string;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
};
export interface AuditedDocument {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> } & Record<string, unknown>;
}

export interface Finding {
  /** `createPoolReservation (POST /api/pools/{id}/reservations)` */
  operation: string;
  /** `request body`, `200 answer`, `parameters` */
  where: string;
  problem: string;
}

/** A field holding money: `amount`, `price`, `unitPrice`, `depositFee`, `grandTotal`, … */
export const AMOUNT_LIKE = /(amount|price|total|fee|balance|commission|deposit)$/i;
/** A field holding a count of units: `quantity`, `minQuantity`, `unitsHeld`, `paidUnits`, … */
export const QUANTITY_LIKE = /(quantity|^units|Units$|^qty$)/i;
const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;
/** What swagger-ui writes for a string, a number or an object it knows nothing more about. */
const PLACEHOLDERS = new Set(['string', 'example']);
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

const DOC_ID = 'https://cagnotte.invalid/openapi.json';
// The formats the document uses; a format it does not check (binary) is accepted as any string.
const FORMATS: Record<string, RegExp | true> = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/,
  date: /^\d{4}-\d\d-\d\d$/,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uri: /^[a-z][a-z0-9+.-]*:\S+$/i,
  binary: true,
};

/**
 * The example a viewer shows when the media type gives none, made from the schema the way swagger-ui does: the
 * schema's own example, default, const or first enum value; else "string" for a string without format or pattern,
 * 0 for a number without a minimum above it, true, and objects and one-item arrays of those.
 */
export const viewerSample = (schema: unknown, components: Record<string, unknown>, depth = 0): unknown => {
  let s = (schema ?? {}) as Schema;
  for (let hops = 0; typeof s.$ref === 'string' && hops < 20; hops++) s = (components[s.$ref.replace('#/components/schemas/', '')] ?? {}) as Schema;
  if (depth > 12) return null;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ('example' in s) return s.example;
  if ('default' in s) return s.default;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const key of ['oneOf', 'anyOf'] as const) if (Array.isArray(s[key]) && (s[key] as unknown[]).length > 0) return viewerSample((s[key] as unknown[])[0], components, depth + 1);
  if (Array.isArray(s.allOf)) return Object.assign({}, ...(s.allOf as unknown[]).map((p) => viewerSample(p, components, depth + 1)));
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : s.type;
  if (type === 'object' || s.properties) {
    const out: Record<string, unknown> = {};
    for (const [key, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) out[key] = viewerSample(sub, components, depth + 1);
    return out;
  }
  if (type === 'array') return [viewerSample(s.items, components, depth + 1)];
  if (type === 'string') return s.format || s.pattern ? `<${String(s.format ?? 'pattern')}>` : 'string';
  if (type === 'integer' || type === 'number') return typeof s.minimum === 'number' && s.minimum > 0 ? s.minimum : 0;
  if (type === 'boolean') return true;
  return type === 'null' ? null : 'string';
};

export interface Placeholder {
  /** `data.units[0].price` */
  path: string;
  kind: 'amount' | 'quantity' | 'placeholder';
  text: string;
}

/** Amounts that are not decimal strings, quantities of 0 and swagger-ui's placeholders, each with its path in the value. */
export const placeholdersIn = (value: unknown): Placeholder[] => {
  const found: Placeholder[] = [];
  const visit = (v: unknown, at: string, key: string | undefined) => {
    if (Array.isArray(v)) return v.forEach((item, i) => visit(item, `${at}[${i}]`, key));
    if (v && typeof v === 'object') return Object.entries(v).forEach(([k, sub]) => visit(sub, at ? `${at}.${k}` : k, k));
    const path = at || '(the body)';
    if (key && AMOUNT_LIKE.test(key) && typeof v === 'string' && !DECIMAL.test(v)) found.push({ path, kind: 'amount', text: `${path} is "${v}", not a decimal amount` });
    else if (key && QUANTITY_LIKE.test(key) && v === 0) found.push({ path, kind: 'quantity', text: `${path} is 0` });
    else if (typeof v === 'string' && PLACEHOLDERS.has(v)) found.push({ path, kind: 'placeholder', text: `${path} is "${v}"` });
  };
  visit(value, '', undefined);
  return found;
};

/** The example a media type shows: its `example`, else its first named example, else none. */
const shownExample = (media: Media): { value: unknown } | undefined => {
  if (media.example !== undefined) return { value: media.example };
  const first = media.examples ? Object.values(media.examples)[0] : undefined;
  return first && first.value !== undefined ? { value: first.value } : undefined;
};

export interface AuditOptions {
  /** The operationIds of the routes that resolve `X-Service-Tenant` (route.ts: every route but those that ignore their input). */
  tenantScoped: ReadonlySet<string>;
}

/** Every problem of the document's examples and tenant headers, operation by operation. */
export const auditExamples = (doc: AuditedDocument, options: AuditOptions): Finding[] => {
  const components = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  const ajv = new Ajv2020({ strict: false, allErrors: false, logger: false });
  for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, format);
  ajv.addSchema({ $id: DOC_ID, components: doc.components ?? {} });
  const validatorOf = (schema: Schema) => ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)) as Schema);

  const findings: Finding[] = [];
  const seenOps = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, raw] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const op = raw as Operation;
      const operation = `${op.operationId ?? '(no operationId)'} (${method.toUpperCase()} ${path})`;
      if (op.operationId) seenOps.add(op.operationId);
      const bodies: Array<[string, Media]> = [];
      const json = op.requestBody?.content?.['application/json'];
      if (json) bodies.push(['request body', json]);
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const media = response.content?.['application/json'];
        if (/^2\d\d$/.test(status) && media) bodies.push([`${status} answer`, media]);
      }
      for (const [where, media] of bodies) {
        const shown = shownExample(media);
        if (!shown) {
          // Only the amounts and quantities: any string the viewer knows nothing of reads "string".
          const synthesised = placeholdersIn(viewerSample(media.schema, components)).filter((p) => p.kind !== 'placeholder');
          findings.push({ operation, where, problem: `no example${synthesised.length ? `; the viewer would show ${synthesised.map((p) => p.text).join(', ')}` : ''}` });
          continue;
        }
        for (const p of placeholdersIn(shown.value)) findings.push({ operation, where, problem: `example: ${p.text}` });
        if (media.schema) {
          const validate = validatorOf(media.schema);
          if (!validate(shown.value)) {
            const errors = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
            findings.push({ operation, where, problem: `example refused by its schema: ${errors.join('; ')}` });
          }
        }
      }
      if (op.operationId && options.tenantScoped.has(op.operationId) && !op.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'x-service-tenant')) {
        findings.push({ operation, where: 'parameters', problem: 'tenant-scoped, but X-Service-Tenant is not listed' });
      }
    }
  }
  for (const id of options.tenantScoped) if (!seenOps.has(id)) findings.push({ operation: id, where: 'paths', problem: 'tenant-scoped operation missing from the document' });
  return findings;
};

export const describeFinding = (f: Finding): string => `${f.operation} ${f.where}: ${f.problem}`;
