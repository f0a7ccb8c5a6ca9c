import { z } from 'zod';
import { defineRoute, type RouteDef } from '@cagnotte/infra';
import { API_VERSION, publicEventCatalogueDocument } from '@cagnotte/read-models';

export const PublicEventTypeSchema = z
  .object({
    type: z.string().describe('The dot type, e.g. `reservation.paid`'),
    description: z.string(),
    subject: z.string().describe('What `subject` is the id of (pool, reservation, dispute, settlement, invoice…)'),
    schema: z.record(z.string(), z.unknown()).describe('JSON Schema (draft 2020-12) of the whole event: the envelope with this `type` and its `data`'),
  })
  .describe('PublicEventType');

export const PublicEventTypes = z
  .object({
    apiVersion: z.literal(API_VERSION).describe('The version every event of this catalogue carries as `apiVersion`'),
    items: z.array(PublicEventTypeSchema),
  })
  .describe('PublicEventTypes');

/**
 * GET /v1/events/types: the public event catalogue with each type's JSON Schema (docs/public-events.json is its
 * published snapshot). Public, like /openapi.json: it documents shapes, never a tenant's data, and a partner reads it
 * before holding credentials (to write a receiver).
 */
export const makeEventTypesRoute = (): RouteDef => {
  // Built once: the catalogue is code, it does not change while the process runs.
  const catalogue = publicEventCatalogueDocument();
  const body: z.infer<typeof PublicEventTypes> = {
    apiVersion: catalogue.apiVersion,
    items: Object.entries(catalogue.types).map(([type, t]) => ({ type, description: t.description, subject: t.subject, schema: t.schema })),
  };
  return defineRoute({
    method: 'get',
    path: '/v1/events/types',
    summary: 'The public event types and their JSON Schemas',
    description:
      'Every type the event feed (GET /v1/events, /v1/events/stream) and webhooks deliver, what it means, and the JSON Schema (draft 2020-12) of the whole event. ' +
      'A published type is never removed and its schema only grows by optional properties (docs/webhooks.md). Public: no tenant data.',
    tags: ['Events'],
    auth: 'none',
    success: { status: 200, description: 'The catalogue', schema: PublicEventTypes },
    errors: [],
    responseHeaders: { 'Cache-Control': '`public, max-age=300`' },
    handler: async () => ({ data: body, headers: { 'Cache-Control': 'public, max-age=300' } }),
  });
};
