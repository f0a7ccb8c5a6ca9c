import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain/errors';
import { V1ListQuery, defineRoute, fromPrefixedId, ledgerCall, prefixedIdParam, unknownCursor, v1List, type RequestContext, type RouteDef } from '@cagnotte/infra';
import { V1Account, toV1Account, type AccountReadModel, type V1AccountReader, type V1AccountViewDeps, type V1Scope } from '@cagnotte/read-models';
import { partnerScopeOf } from './principal';

export interface AccountV1QueryDeps {
  accounts: V1AccountReader;
  /** The session's own account (an organiser's?). */
  users: AccountReadModel;
  view: V1AccountViewDeps;
  /** Read-your-writes on the accounts and what their balances sum (transfers, reservations). */
  awaitProjections?: (ctx: RequestContext<unknown, unknown, unknown>) => Promise<void>;
}

const IdParams = z.object({ id: prefixedIdParam('acct') });

export const makeAccountV1QueryRoutes = ({ accounts, users, view, awaitProjections }: AccountV1QueryDeps): RouteDef[] => {
  const scopeOf = (ctx: RequestContext<unknown, unknown, unknown>) => partnerScopeOf(ctx, { accounts: users, production: view.defaultLivemode });
  /** A cursor is an account id of the same list: its seq, or a 400 on the parameter. */
  const cursorSeq = async (scope: V1Scope, id: string | undefined, param: 'startingAfter' | 'endingBefore'): Promise<bigint | undefined> => {
    if (id === undefined) return undefined;
    const userId = fromPrefixedId('acct', id);
    const found = userId ? await accounts.find(scope, userId) : null;
    if (!found) throw unknownCursor(param);
    return found.seq;
  };

  return [
    defineRoute({
      method: 'get',
      path: '/v1/accounts/{id}',
      summary: 'Retrieve an account',
      description: 'Its balances read now: `available` from the ledger (the wallet’s balance of the stablecoin), `pending` and `inEscrow` from the read models.',
      tags: ['v1 Accounts'],
      auth: 'required',
      tenant: 'required',
      params: IdParams,
      success: { status: 200, description: 'The account', schema: V1Account },
      errors: [401, 403, 404, 503],
      handler: async (ctx) => {
        const scope = await scopeOf(ctx);
        await awaitProjections?.(ctx);
        const userId = fromPrefixedId('acct', ctx.params.id);
        const doc = userId ? await accounts.find(scope, userId) : null;
        if (!doc) throw new NotFoundError('account');
        return { data: await ledgerCall(() => toV1Account(view, doc)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/accounts',
      summary: 'List accounts',
      description: 'Newest first. `startingAfter` / `endingBefore`: an account id of the list.',
      tags: ['v1 Accounts'],
      auth: 'required',
      tenant: 'required',
      query: V1ListQuery,
      success: { status: 200, description: 'A page of accounts', schema: v1List(V1Account).describe('V1AccountList') },
      errors: [400, 401, 403, 404, 503],
      handler: async (ctx) => {
        const scope = await scopeOf(ctx);
        await awaitProjections?.(ctx);
        const [after, before] = await Promise.all([cursorSeq(scope, ctx.query.startingAfter, 'startingAfter'), cursorSeq(scope, ctx.query.endingBefore, 'endingBefore')]);
        const page = await accounts.list(scope, { limit: ctx.query.limit, after, before });
        const items = await ledgerCall(() => Promise.all(page.items.map((doc) => toV1Account(view, doc))));
        return { data: { object: 'list' as const, items, hasMore: page.hasMore, url: '/v1/accounts' } };
      },
    }),
  ];
};
