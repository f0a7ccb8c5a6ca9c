import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain/errors';
import { defineRoute, ledgerCall, type LedgerGateway, type RequestContext, type RouteDef } from '@cagnotte/infra';
import { OrganiserGrantSchema, organiserGrantView, type OrganiserGrantReadModel } from '@cagnotte/read-models';

export interface PersonaQueryDeps {
  grants: OrganiserGrantReadModel;
  /** Rebuilds the unsigned fee payment of an awaiting grant (a fresh sequence number on every read). */
  ledger: LedgerGateway;
  /** Read-your-writes: waits for the projection that writes rm_organiser_grants when the request names a position. */
  awaitProjections: (ctx: RequestContext<unknown, unknown, unknown>) => Promise<void>;
}

export const makePersonaQueryRoutes = ({ grants, ledger, awaitProjections }: PersonaQueryDeps): RouteDef[] => [
  defineRoute({
    method: 'get',
    path: '/api/me/become-organiser/{grantId}',
    operationId: 'getOrganiserGrant',
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
      await awaitProjections(ctx);
      const grant = await grants.findOwn(ctx.auth!.userId, ctx.params.grantId);
      if (!grant) throw new NotFoundError('grant');
      const payment = grant.status === 'SETTLED' ? null : await ledgerCall(() => ledger.buildFeePayment(grant.ledgerAccount, grant.amount, grant.memoHash));
      return { data: organiserGrantView(grant, ledger.settings.networkPassphrase, payment) };
    },
  }),
];
