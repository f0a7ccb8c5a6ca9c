import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { decideFirstTouch, decidePilotRequest, evolveLead, evolveVisitor, firstTouchOf, initialLead, initialVisitor } from '@cagnotte/domain';
import { Attribution } from '@cagnotte/event-schemas';
import { defineRoute, type RouteDef } from '@cagnotte/infra';
import { metadataFor } from '../shared/context';
import { type CommandRuntime } from '../shared/run-command';
import { executeCommand } from '../shared/execute-command';

const utm = {
  utm_source: z.string().trim().max(200).optional(),
  utm_medium: z.string().trim().max(200).optional(),
  utm_campaign: z.string().trim().max(200).optional(),
  utm_term: z.string().trim().max(200).optional(),
  utm_content: z.string().trim().max(200).optional(),
};

export const PilotRequestInput = z
  .object({
    contactName: z.string().trim().min(1).max(200),
    email: z.string().trim().email().max(320),
    phone: z.string().trim().min(5).max(40).optional(),
    company: z.string().trim().min(1).max(200),
    role: z.string().trim().max(120).optional(),
    volume: z.enum(['<100', '100-1000', '1000-10000', '>10000']).describe('Expected orders per month'),
    message: z.string().trim().min(1).max(5000),
    consent: z.literal(true, { message: 'consent to be contacted is required' }),
    visitorId: z.string().regex(/^[A-Za-z0-9_-]{8,128}$/).optional().describe('The front end\'s visitor id; else X-Visitor-Id; else derived from IP and user agent'),
    referrer: z.string().trim().max(2000).optional(),
    ...utm,
  })
  .strict()
  .describe('PilotRequestInput');
type PilotRequestInput = z.infer<typeof PilotRequestInput>;

const PilotQuery = z.object(utm).describe('UTM parameters may also come on the query string');

const visitorStream = (tenantId: string, visitorId: string) => `visitor-${tenantId}-${visitorId}`;
const visitor = { initial: initialVisitor, evolve: evolveVisitor };
const lead = { initial: initialLead, evolve: evolveLead };

/**
 * White-label lead capture. The visitor's first touch (utm_* from the query or body, referrer) is recorded
 * once, with no_stream on the visitor's stream; every later lead of the same visitor carries that first touch.
 */
export const makePilotRequestRoutes = ({ store, pgPool, commandQueue, clock }: CommandRuntime & { clock: () => Date }): RouteDef[] => {
  const runtime: CommandRuntime = { store, pgPool, commandQueue };
  return [
  defineRoute({
    method: 'post',
    path: '/api/tenant/pilot-requests',
    summary: 'Request a pilot (lead capture)',
    description: 'Public, behind the tenant\'s white-label toggle (404 when off). Records the lead and the visitor\'s first-touch UTM attribution.',
    tags: ['Catalogue'],
    auth: 'none',
    tenant: 'required',
    gate: 'tenant',
    query: PilotQuery,
    body: PilotRequestInput,
    idempotent: true,
    rateLimit: { name: 'pilot-requests', limit: 30, windowSeconds: 60 },
    success: { status: 201, description: 'Lead recorded', schema: z.object({ id: z.string().uuid(), message: z.string() }) },
    errors: [400, 404, 429],
    handler: async (ctx) => {
      const tenant = ctx.tenant!;
      const body = ctx.body as PilotRequestInput;
      const query = ctx.query as z.infer<typeof PilotQuery>;
      const header = ctx.req.headers['x-visitor-id'];
      const visitorId =
        body.visitorId ??
        (typeof header === 'string' && /^[A-Za-z0-9_-]{8,128}$/.test(header)
          ? header
          : createHash('sha256').update(`${tenant.id}|${ctx.ip}|${ctx.req.headers['user-agent'] ?? ''}`).digest('hex').slice(0, 32));
      const touch = Attribution.parse(
        Object.fromEntries(
          Object.entries({
            utm_source: body.utm_source ?? query.utm_source,
            utm_medium: body.utm_medium ?? query.utm_medium,
            utm_campaign: body.utm_campaign ?? query.utm_campaign,
            utm_term: body.utm_term ?? query.utm_term,
            utm_content: body.utm_content ?? query.utm_content,
            referrer: body.referrer ?? (typeof ctx.req.headers.referer === 'string' ? ctx.req.headers.referer.slice(0, 2000) : undefined),
          }).filter(([, v]) => v !== undefined && v !== ''),
        ),
      );
      const now = clock().toISOString();
      const metadata = metadataFor(ctx, tenant.id, now);
      // The visitor's first touch is recorded once; a visitor already touched keeps (and lends this lead) its first one.
      const touched = await executeCommand(runtime, {
        stream: visitorStream(tenant.id, visitorId),
        aggregate: visitor,
        decide: (state) => decideFirstTouch({ tenantId: tenant.id, visitorId, attribution: touch, touchedAt: now }, state),
        metadata,
      });
      const attribution = firstTouchOf(touched.state, touch);
      const leadId = randomUUID();
      const request = {
        leadId,
        tenantId: tenant.id,
        visitorId,
        contactName: body.contactName,
        email: body.email.toLowerCase(),
        phone: body.phone ?? null,
        company: body.company,
        role: body.role ?? null,
        volume: body.volume,
        message: body.message,
        consentAt: now,
        attribution,
        requestedAt: now,
      };
      // Under an Idempotency-Key the lead and the answer commit together: a retry after a crash replays, never duplicates.
      const answer = { status: 201, data: { id: leadId, message: 'Thank you: we will get back to you shortly.' } };
      const outcome = await executeCommand(runtime, {
        stream: `lead-${leadId}`,
        aggregate: lead,
        decide: (state) => decidePilotRequest(request, state),
        metadata,
        respond: () => answer,
        idempotency: ctx.idempotency,
      });
      return outcome.answer!;
    },
  }),
  ];
};
