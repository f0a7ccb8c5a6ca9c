import { NotFoundError } from '../errors';
import type { ExistingPool, Pool } from '../pools/pool';

/**
 * The one guard of a buyer's commands on a reservation of theirs (sign, pay, cancel; confirm receipt, open and withdraw
 * a dispute). A pool where the caller holds no reservation is no pool to them: none, another tenant's (the caller is
 * handed none) and one they hold nothing in give the same 404 pool_not_found, whatever reservation or dispute id they
 * name. Only a caller who knows the pool (a buyer in it, or its organiser) gets the reservation's own answers.
 */
export const requireBuyerIn = (state: Pool, userId: string | null): ExistingPool => {
  if (state.status !== 'none' && userId !== null) {
    if (userId === state.organiserId) return state;
    for (const r of state.holdings.byId.values()) if (r.buyerId === userId) return state;
  }
  throw new NotFoundError('pool');
};
