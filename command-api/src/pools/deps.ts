import type { RelaisDirectoryPort } from '@cagnotte/event-schemas';
import type { JobQueue } from '@cagnotte/infra';
import type { ExecuteRuntime } from '../shared/execute-command';
import type { CommandFacts } from '../shared/facts';
import type { SellerDeps } from './seller';

/** What the pool commands take, and nothing else. */
export interface PoolCommandDeps extends ExecuteRuntime, SellerDeps {
  clock: () => Date;
  /** The caller's persona and the tenant's policy, kept per process and refreshed from their streams' tails. */
  facts: CommandFacts;
  /** Opens a pool's escrow account on the ledger (idempotent per pool: a retry finds the same account). */
  escrow: EscrowOpener;
  /** How long after its deadline (or, without one, after publishing plus the longest open period) a buyer may reclaim. */
  reclaimAfterDays: number;
  /** Background jobs (the delist refund is one). */
  jobs: JobQueue;
  /** The deployment's mode (APP_ENV=production is live): what a pool created with a session records as `livemode`. */
  production: boolean;
  /**
   * The pick-up point directory, asked only when a config names directory points (`<network>:<pointId>`); a getter,
   * so a process without one serves every other pool. Absent: such a config is a 503 relais_unavailable.
   */
  relaisDirectory?: () => RelaisDirectoryPort;
}

/** The ledger side of publishing (infra/src/ledger/escrow.ts), as the pool commands need it. */
export interface EscrowOpener {
  openEscrow(input: { poolId: string; organiserAccount: string }): Promise<{ accountId: string; platformSigner: string; threshold: number; setupTxHash: string | null }>;
}
