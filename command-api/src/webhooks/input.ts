import { z } from 'zod';
import { DEFAULT_ROTATION_EXPIRY_SECONDS, MAX_ROTATION_EXPIRY_SECONDS, MAX_WEBHOOK_URL_LENGTH } from '@cagnotte/infra';
import { WebhookEndpointSchema, enabledEventProblem } from '@cagnotte/read-models';

/**
 * The request bodies of the endpoints API. The URL's syntax is checked here; its safety (https in production, no
 * private address, the sandbox's exceptions) needs the environment and DNS, so the route asks the SSRF guard after.
 */
const Url = z.string().trim().min(1, 'required').max(MAX_WEBHOOK_URL_LENGTH, `at most ${MAX_WEBHOOK_URL_LENGTH} characters`).describe('https:// (the sandbox also takes http://localhost and its inbox)');

export const MAX_ENABLED_EVENTS = 100;
const EnabledEvents = z
  .array(z.string().max(100))
  .min(1, 'name at least one event type, a `<prefix>.*` or `*`')
  .max(MAX_ENABLED_EVENTS, `at most ${MAX_ENABLED_EVENTS} entries`)
  .superRefine((entries, ctx) => {
    entries.forEach((entry, i) => {
      const problem = enabledEventProblem(entry);
      if (problem) ctx.addIssue({ code: 'custom', path: [i], message: problem });
    });
  })
  .transform((entries) => [...new Set(entries)])
  .describe('Public event types (`reservation.paid`), a resource’s types (`reservation.*`) or every type (`*`)');

export const MAX_METADATA_KEYS = 20;
const Metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= MAX_METADATA_KEYS, `at most ${MAX_METADATA_KEYS} keys`)
  .describe('Your own labels: at most 20 string keys (≤ 40 characters) and values (≤ 500)');
const Description = z.string().trim().max(500);
const Ordering = z.enum(['none', 'per_subject']);

export const WebhookCreateInput = z
  .object({
    url: Url,
    enabledEvents: EnabledEvents,
    description: Description.optional(),
    metadata: Metadata.optional(),
    ordering: Ordering.default('none').describe('per_subject: events about one subject are delivered one at a time, in `sequence` order'),
  })
  .strict()
  .describe('WebhookCreateInput');
export type WebhookCreateInput = z.infer<typeof WebhookCreateInput>;

export const WebhookUpdateInput = z
  .object({
    url: Url.optional(),
    enabledEvents: EnabledEvents.optional(),
    description: Description.nullable().optional().describe('null clears it'),
    metadata: Metadata.optional().describe('Replaces the whole map'),
    ordering: Ordering.optional(),
    status: z.enum(['enabled', 'disabled']).optional().describe('Re-enabling an endpoint disabled by failures answers `recovery`, the window it missed'),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'change at least one field')
  .describe('WebhookUpdateInput');
export type WebhookUpdateInput = z.infer<typeof WebhookUpdateInput>;

export const RotateSecretInput = z
  .object({
    expiresInSeconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_ROTATION_EXPIRY_SECONDS, 'at most 604800 (7 days)')
      .default(DEFAULT_ROTATION_EXPIRY_SECONDS)
      .describe('How long the current secrets keep signing beside the new one (0: they stop now); default 86400'),
  })
  .strict()
  .describe('RotateSecretInput');

const Time = z.string().datetime({ offset: true, message: 'an ISO 8601 date-time' });
export const RecoverInput = z
  .object({ since: Time.describe('Re-deliver the events from this time…'), until: Time.optional().describe('…until this one (excluded); default now') })
  .strict()
  .describe('RecoverInput');

export const EndpointParams = z.object({ id: z.string().max(100) });

const Secret = z.string().regex(/^whsec_/).describe('The signing secret (`whsec_…`), shown only here: store it now');
export const CreatedEndpointSchema = WebhookEndpointSchema.extend({
  secret: Secret.optional().describe('The signing secret (`whsec_…`), shown only in this answer. A replay of this answer (same Idempotency-Key) omits it: rotate if it was lost'),
}).describe('CreatedWebhookEndpoint');
export const UpdatedEndpointSchema = WebhookEndpointSchema.extend({
  recovery: z
    .object({ since: z.string(), until: z.string() })
    .optional()
    .describe('Present when this update re-enabled an endpoint disabled by failures: POST …/recover with it re-delivers what it missed'),
}).describe('UpdatedWebhookEndpoint');
export const RotatedSecretSchema = z
  .object({
    id: z.string(),
    secret: Secret.optional().describe('The new secret, shown only in this answer (a replay with the same Idempotency-Key omits it)'),
    previousSecretsExpireAt: z.string().describe('Until then the previous secrets sign too'),
  })
  .describe('RotatedWebhookSecret');
