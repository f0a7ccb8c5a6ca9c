import { evolvePool, initialPool, type Pool } from '@cagnotte/domain';
import type { PoolEvent } from '@cagnotte/event-schemas';
import { foldPool, type PoolDoc } from '@cagnotte/read-models';
import type { Aggregate, CommandOutcome } from '../shared/run-command';

/**
 * One read of the pool's stream feeds both folds: the aggregate's (what the decider decides on) and the pools read
 * model's own (what the answer renders, through the same view the query side serves). A stream's revisions are
 * 0-based and consecutive, so counting events gives each its revision.
 */
export interface PoolCommandState {
  pool: Pool;
  doc: PoolDoc | null;
  revision: bigint;
}

export const poolAggregate: Aggregate<PoolCommandState, PoolEvent> = {
  initial: () => ({ pool: initialPool(), doc: null, revision: -1n }),
  evolve: (s, e) => ({ pool: evolvePool(s.pool, e), doc: foldPool(s.doc, e, s.revision + 1n), revision: s.revision + 1n }),
};

export type PoolOutcome = CommandOutcome<PoolCommandState, PoolEvent>;

/** The pool as a caller of `tenantId` may see it: another tenant's pool does not exist (the decider sees none). */
export const poolInTenant = (pool: Pool, tenantId: string): Pool => (pool.status !== 'none' && pool.tenantId !== tenantId ? initialPool() : pool);
