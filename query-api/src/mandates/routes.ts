import { z } from 'zod';
import { mandateTexts } from '@cagnotte/event-schemas';
import { defineRoute, type RequestContext, type RouteDef } from '@cagnotte/infra';
import { MandateSchema, MandateTextSchema, mandateView, type MandateReadModel } from '@cagnotte/read-models';

export interface MandateQueryDeps {
  mandates: MandateReadModel;
  /** Read-your-writes: waits for the projection that writes rm_mandates when the request names a position. */
  awaitProjections: (ctx: RequestContext<unknown, unknown, unknown>) => Promise<void>;
}

/** The caller's own mandates (owner-only by construction: the reader is scoped to the caller). */
export const makeMandateQueryRoutes = ({ mandates, awaitProjections }: MandateQueryDeps): RouteDef[] => [
  defineRoute({
    method: 'get',
    path: '/api/mandates',
    summary: 'My mandates and the current mandate texts',
    description: 'Bearer. Every acceptance and revocation of the caller, newest first, plus the server-authoritative texts (FEE, COMMISSION, RELAIS) with their version and sha256.',
    tags: ['Auth'],
    auth: 'required',
    success: { status: 200, description: 'Mandates and texts', schema: z.object({ mandates: z.array(MandateSchema), texts: z.array(MandateTextSchema) }) },
    errors: [401],
    handler: async (ctx) => {
      await awaitProjections(ctx);
      const own = await mandates.listOwn(ctx.auth!.userId);
      return { data: { mandates: own.map(mandateView), texts: mandateTexts() } };
    },
  }),
];
