import { ForbiddenError, NotFoundError } from '../errors';
import type { ExistingPool, Pool } from './pool';

/** Who gives an organiser's command: a user (with their role), or the system (a job) when null. */
export type OrganiserActor = { userId: string; role?: string } | null;

/**
 * The one guard of the organiser's commands on a pool (archive and unarchive, close, cancel, delivered, answering a
 * dispute, preparing a settlement). The role is decided before the pool is looked at: without the organise capability
 * the answer is 403 whether the pool exists, is another organiser's or not. Then no pool, another tenant's (the caller
 * is handed none) and another organiser's are the same 404: nothing tells them apart. A role left undefined is not
 * checked (every signed-in caller's is given; the system has none and is nobody's organiser).
 */
export const requireOrganiserOf = (state: Pool, actor: OrganiserActor): ExistingPool => {
  if (actor && actor.role !== undefined && actor.role !== 'organiser') throw new ForbiddenError('organise_capability_required', 'Organise capability required');
  if (state.status === 'none' || !actor || actor.userId !== state.organiserId) throw new NotFoundError('pool');
  return state;
};
