import { NotFoundError } from '@cagnotte/domain/errors';
import { defineRoute, type LedgerGateway, type RequestContext, type RouteDef } from '@cagnotte/infra';
import { AuthMeResponse, authMeView, spendingOf, type AccountReadModel, type ReservationReadModel, type TenantReadModel } from '@cagnotte/read-models';

export interface IdentityQueryDeps {
  accounts: AccountReadModel;
  tenants: TenantReadModel;
  /** Only its settings: the wallet's asset and network. */
  ledger: LedgerGateway;
  /** `spending` comes from the buyer's reservations. */
  reservations: ReservationReadModel;
  /** Read-your-writes (X-Min-Position, and the session's own last write in this process) on the account and its reservations. */
  awaitProjections?: (ctx: RequestContext<unknown, unknown, unknown>) => Promise<void>;
  clock?: () => Date;
}

export const makeIdentityQueryRoutes = ({ accounts, tenants, ledger, reservations, awaitProjections, clock = () => new Date() }: IdentityQueryDeps): RouteDef[] => [
  defineRoute({
    method: 'get',
    path: '/api/auth/me',
    operationId: 'getCurrentUser',
    summary: 'The signed-in user\'s context',
    description: 'Region, wallet, spending, verification and agent context. 404 when the account no longer exists.',
    tags: ['Auth'],
    auth: 'required',
    success: { status: 200, description: 'The current user', schema: AuthMeResponse },
    errors: [401, 404],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      await awaitProjections?.(ctx);
      const [account, tenant, spent] = await Promise.all([accounts.find(auth.userId), tenants.byId(auth.tenantId), reservations.spendingRows(auth.tenantId, auth.userId)]);
      if (!account || !tenant) throw new NotFoundError('account');
      const wallet = { assetCode: ledger.settings.assetCode, assetIssuer: ledger.settings.assetIssuer, network: ledger.network, networkPassphrase: ledger.settings.networkPassphrase };
      return { data: authMeView(account, tenant, wallet, auth, spendingOf(spent, clock())) };
    },
  }),
];
