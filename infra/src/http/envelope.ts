import { z } from 'zod';
import { isLedgerAmount, ledgerBoundMessage, type FieldErrors } from '@cagnotte/domain';
import { DecimalAmount } from '@cagnotte/event-schemas';

/** `{ success: true, data }`: every answer but the SSO redirect. */
export const successEnvelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

export const ErrorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.string().describe('A human-readable message.'),
    code: z.string().describe('A stable machine-readable code, e.g. `pool_already_archived`, `validation_failed`, `rate_limited`.'),
    errors: z.record(z.string(), z.array(z.string())).optional().describe('Per-field messages, for validation failures. Keys are dotted paths.'),
    param: z.string().optional().describe('The first field or parameter at fault (a key of `errors`, or a header such as `Idempotency-Key`).'),
    requestId: z.string().optional().describe('This request’s id, as in the `X-Request-Id` header: quote it when asking for support.'),
  })
  .describe('Error envelope');

export const errorBody = (error: string, code: string, errors?: FieldErrors, requestId?: string) => {
  const fields = errors ? Object.keys(errors) : [];
  return {
    success: false as const,
    error,
    code,
    ...(fields.length > 0 ? { errors, param: fields[0] } : {}),
    ...(requestId ? { requestId } : {}),
  };
};

/** Turns zod issues into `{ "config.units.0.price": ["…"] }`. A root-level issue is keyed `body` (or the given root). */
export const fieldErrorsFromZod = (issues: readonly z.core.$ZodIssue[], root = 'body'): FieldErrors => {
  // No prototype: a client's key named `__proto__` or `toString` is just a key here.
  const out: FieldErrors = Object.create(null);
  for (const issue of issues) {
    const key = issue.path.length > 0 ? issue.path.map(String).join('.') : root;
    let message = issue.message;
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) (out[issue.path.length > 0 ? `${key}.${k}` : k] ??= []).push('unknown field');
      continue;
    }
    if (issue.code === 'invalid_type' && issue.message.includes('received undefined')) message = 'required';
    (out[key] ??= []).push(message);
  }
  return out;
};

export const PaginationSchema = z
  .object({
    page: z.number().int().describe('1-based page number returned'),
    limit: z.number().int().describe('items per page (1 to 100)'),
    total: z.number().int().describe('items matching the filters'),
    totalPages: z.number().int(),
    hasNext: z.boolean(),
  })
  .meta({ id: 'Pagination', description: 'Pagination' });

export const paginated = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), pagination: PaginationSchema });

export const pagination = (page: number, limit: number, total: number) => ({
  page,
  limit,
  total,
  totalPages: Math.max(1, Math.ceil(total / limit)),
  hasNext: page * limit < total,
});

/**
 * A whole number written in decimal digits only, from a query string. `z.coerce.number()` would take `0x10`,
 * `1e3`, `+1`, ` 1` or `1.0` (Number() does), so one value would have several spellings: refused as a 400.
 */
export const decimalInt = (min: number, max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^[0-9]{1,9}$/.test(v) ? Number(v) : v),
    z.number({ error: 'must be a whole number written in decimal digits only' }).int().min(min).max(max),
  );

/** page ≥ 1 (default 1, at most 10 000), limit 1–100 (default 20). Out-of-range values are a 400, not clamped. */
export const PageQuery = z.object({
  page: decimalInt(1, 10_000).default(1).describe('1-based page, default 1, at most 10000'),
  limit: decimalInt(1, 100).default(20).describe('page size, 1 to 100, default 20'),
});

/**
 * An amount a request asks the service to move: a decimal string (7 decimals at most) that one ledger payment can
 * carry (MAX_LEDGER_AMOUNT, int64 stroops). Every request amount uses it; the deciders check the products and sums.
 */
export const LedgerAmount = DecimalAmount.refine(isLedgerAmount, { message: ledgerBoundMessage() });
