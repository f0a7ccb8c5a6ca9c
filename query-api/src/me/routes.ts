import { z } from 'zod';
import {
  MandateSchema,
  MandateTextSchema,
  NotFoundError,
  OrganiserGrantSchema,
  defineRoute,
  findGrant,
  mandateTexts,
  mandateView,
  organiserGrantView,
  readAccountState,
  type RouteDef,
  type Services,
} from '@cagnotte/infra';

/** Reads of the caller's own account stream: mandates and organiser grants (always current, owner-only by construction). */
export const makeMeQueryRoutes = ({ services }: { services: Services }): RouteDef[] => [
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
      const account = await readAccountState(services.store, ctx.auth!.userId);
      return { data: { mandates: [...(account?.mandates ?? [])].reverse().map(mandateView), texts: mandateTexts() } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/me/become-organiser/{grantId}',
    summary: 'Read an organiser grant',
    description:
      "Bearer, gated, owner only (404 for anyone else). While AWAITING_SIGNATURE the unsigned XDR is rebuilt on every call, with the account's current sequence number and a fresh time bound.",
    tags: ['Auth'],
    auth: 'required',
    gate: 'user',
    params: z.object({ grantId: z.string().uuid() }),
    success: { status: 200, description: 'The grant', schema: OrganiserGrantSchema },
    errors: [401, 404, 503],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const grant = findGrant(await readAccountState(services.store, auth.userId), ctx.params.grantId);
      if (!grant) throw new NotFoundError('grant');
      return { data: await organiserGrantView(services.ledger, grant) };
    },
  }),
];
