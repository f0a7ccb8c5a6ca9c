import { z } from 'zod';
import { ForbiddenError } from '@cagnotte/domain';
import type { RequestContext } from './route';

/*
 * TEMPORARY (fix/acct): the /v1 foundation's interface (docs: the /v1 design), until it lands on main. Deleted at the
 * merge, its callers switched to infra/src/http/v1.ts.
 */

export interface ApiKeyContext {
  id: string;
  tenantId: string;
  ownerId: string;
  livemode: boolean;
  scopes: string[];
}

export const apiKeyOf = (ctx: Pick<RequestContext<unknown, unknown, unknown>, 'auth'>): ApiKeyContext | null => (ctx as { apiKey?: ApiKeyContext | null }).apiKey ?? null;

export const livemodeOf = (ctx: Pick<RequestContext<unknown, unknown, unknown>, 'auth'>): boolean => apiKeyOf(ctx)?.livemode ?? process.env.APP_ENV === 'production';

export const toPrefixedId = (prefix: string, uuid: string): string => `${prefix}_${uuid.replace(/-/g, '')}`;

export const fromPrefixedId = (prefix: string, id: string): string | null => {
  const m = new RegExp(`^${prefix}_([0-9a-f]{32})$`).exec(id);
  if (!m) return null;
  const h = m[1]!;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

export const V1ListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(10),
    startingAfter: z.string().max(100).optional(),
    endingBefore: z.string().max(100).optional(),
  })
  .strict();

export const v1List = <T extends z.ZodType>(item: T) => z.object({ object: z.literal('list'), items: z.array(item), hasMore: z.boolean(), url: z.string() });

/** The partner's credentials: /v1 accounts and transfers are a partner's server-side resources. */
export const requireApiKey = (ctx: Pick<RequestContext<unknown, unknown, unknown>, 'auth'>): ApiKeyContext => {
  const key = apiKeyOf(ctx);
  if (!key) throw new ForbiddenError('api_key_required', 'This resource is served to an API key (Authorization: Bearer sk_test_… or sk_live_…)');
  return key;
};
