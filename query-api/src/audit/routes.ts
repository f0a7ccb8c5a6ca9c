import type { RouteDef } from '@cagnotte/infra';
import type { AuditReadModel, ExtraFolds } from '@cagnotte/read-models';
import type { ConsistencyDeps } from '../shared/consistency';
import { makeAuditHistoryRoutes } from './history-routes';
import { makeAuditStateRoute } from './state-route';
import { makeDealHistoryRoute } from './deal-history-route';

export interface AuditQueryDeps extends ConsistencyDeps {
  audit: AuditReadModel;
  extraFolds?: ExtraFolds;
  clock?: () => Date;
  production?: boolean;
}

/** The auditor's reads (tag Audit): pool, escrow, reservation and deal histories as stored, and a pool's state at a point. */
export const makeAuditQueryRoutes = (deps: AuditQueryDeps): RouteDef[] => [...makeAuditHistoryRoutes(deps), makeAuditStateRoute(deps), makeDealHistoryRoute(deps)];
