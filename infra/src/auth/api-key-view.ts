import { z } from 'zod';
import { toPrefixedId } from '@cagnotte/event-schemas';
import type { ApiKeyRecord } from './api-keys';

/** An API key as `/v1/api-keys` and the CLI show it: never its secret (but once, at creation or roll). */
export const ApiKeyView = z
  .object({
    id: z.string().meta({ example: 'key_0c1d2e3f40514a6b8c7d9e0f1a2b3c4d' }),
    object: z.literal('api_key'),
    livemode: z.boolean(),
    name: z.string(),
    redactedSecret: z.string().describe('The secret’s mode and last four characters: `sk_test_…a1B2`').meta({ example: 'sk_test_…a1B2' }),
    scopes: z.array(z.string()).describe('`*`, `*:read`, or `<resource>:read|write` (write implies read)'),
    owner: z.string().describe('The account the key acts as (`acct_…`), an organiser of the tenant'),
    created: z.string().datetime(),
    lastUsed: z.string().datetime().nullable().describe('Updated at most once a minute'),
    expiresAt: z.string().datetime().nullable().describe('A rolled key works until then'),
    revokedAt: z.string().datetime().nullable(),
    rolledTo: z.string().nullable().describe('The key that replaced this one'),
  })
  .meta({ id: 'ApiKey' });

export const ApiKeyWithSecret = ApiKeyView.extend({
  secret: z.string().nullable().describe('The secret, shown once: null on a replay of the same Idempotency-Key (it is not kept)'),
}).meta({ id: 'ApiKeyWithSecret' });

export const toApiKeyView = (k: ApiKeyRecord): z.infer<typeof ApiKeyView> => ({
  id: toPrefixedId('key', k.id),
  object: 'api_key',
  livemode: k.livemode,
  name: k.name,
  redactedSecret: `sk_${k.livemode ? 'live' : 'test'}_…${k.last4}`,
  scopes: k.scopes,
  owner: toPrefixedId('acct', k.ownerId),
  created: k.createdAt.toISOString(),
  lastUsed: k.lastUsedAt?.toISOString() ?? null,
  expiresAt: k.expiresAt?.toISOString() ?? null,
  revokedAt: k.revokedAt?.toISOString() ?? null,
  rolledTo: k.rolledTo ? toPrefixedId('key', k.rolledTo) : null,
});

