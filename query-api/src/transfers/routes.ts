import { z } from 'zod';
import { NotFoundError, ValidationError } from '@cagnotte/domain/errors';
import { V1ListQuery, defineRoute, fromPrefixedId, prefixedIdParam, unknownCursor, v1List, type RequestContext, type RouteDef } from '@cagnotte/infra';
import { V1Transfer, toV1Transfer, type AccountReadModel, type TransferScope, type V1TransferReader } from '@cagnotte/read-models';
import { partnerScopeOf } from '../accounts/principal';

export interface TransferQueryDeps {
  transfers: V1TransferReader;
  /** The session's own account (an organiser's?). */
  users: AccountReadModel;
  production: boolean;
  awaitProjections?: (ctx: RequestContext<unknown, unknown, unknown>) => Promise<void>;
}

const IdParams = z.object({ id: prefixedIdParam('tr') });
const TransferListQuery = z
  .object({ ...V1ListQuery.shape, account: z.string().max(100).optional().describe('`acct_…`: the transfers it sent or received') })
  .refine((q) => !(q.startingAfter && q.endingBefore), { message: 'give startingAfter or endingBefore, not both', path: ['startingAfter'] });

export const makeTransferQueryRoutes = ({ transfers, users, production, awaitProjections }: TransferQueryDeps): RouteDef[] => {
  const scopeOf = async (ctx: RequestContext<unknown, unknown, unknown>): Promise<TransferScope> => partnerScopeOf(ctx, { accounts: users, production });
  const cursorSeq = async (scope: TransferScope, id: string | undefined, param: 'startingAfter' | 'endingBefore'): Promise<bigint | undefined> => {
    if (id === undefined) return undefined;
    const transferId = fromPrefixedId('tr', id);
    const found = transferId ? await transfers.find(scope, transferId) : null;
    if (!found) throw unknownCursor(param);
    return found.seq;
  };

  return [
    defineRoute({
      method: 'get',
      path: '/v1/transfers/{id}',
      summary: 'Retrieve a transfer',
      tags: ['v1 Transfers'],
      auth: 'required',
      tenant: 'required',
      params: IdParams,
      success: { status: 200, description: 'The transfer', schema: V1Transfer },
      errors: [401, 403, 404],
      handler: async (ctx) => {
        const scope = await scopeOf(ctx);
        await awaitProjections?.(ctx);
        const transferId = fromPrefixedId('tr', ctx.params.id);
        const doc = transferId ? await transfers.find(scope, transferId) : null;
        if (!doc) throw new NotFoundError('transfer');
        return { data: toV1Transfer(doc) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/transfers',
      summary: 'List transfers',
      description: 'Newest first; `account`: those it sent or received.',
      tags: ['v1 Transfers'],
      auth: 'required',
      tenant: 'required',
      query: TransferListQuery,
      success: { status: 200, description: 'A page of transfers', schema: v1List(V1Transfer).describe('V1TransferList') },
      errors: [400, 401, 403, 404],
      handler: async (ctx) => {
        const scope = await scopeOf(ctx);
        await awaitProjections?.(ctx);
        let account: string | undefined;
        if (ctx.query.account !== undefined) {
          const userId = fromPrefixedId('acct', ctx.query.account);
          if (!userId) throw new ValidationError({ account: ['must be an account id (acct_…)'] });
          account = userId;
        }
        const [after, before] = await Promise.all([cursorSeq(scope, ctx.query.startingAfter, 'startingAfter'), cursorSeq(scope, ctx.query.endingBefore, 'endingBefore')]);
        const page = await transfers.list(scope, { limit: ctx.query.limit, after, before, account });
        return { data: { object: 'list' as const, items: page.items.map(toV1Transfer), hasMore: page.hasMore, url: '/v1/transfers' } };
      },
    }),
  ];
};
