import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain/errors';
import { PageQuery, defineRoute, ledgerCall, paginated, pagination, type EscrowLedger, type RouteDef } from '@cagnotte/infra';
import { escrowFactsOfReads, factsOfRow, reconcileEscrow, type EscrowDoc, type EscrowReadModel, type ReservationReadModel } from '@cagnotte/read-models';
import { waitForMinPosition, type ConsistencyDeps } from '../shared/consistency';

// Reconciliation over HTTP: a pool's escrow as its events say (the escrow and reservations read models, folds of the
// pool's stream) against the ledger. The operator's `pnpm cli escrow reconcile` replays the streams themselves.

const Problems = z.array(z.string());
const Deposit = z.object({ reservationId: z.string(), balanceId: z.string(), amount: z.string() });
export const EscrowReconciliationSchema = z
  .object({
    poolId: z.string().uuid(),
    escrowAccount: z.string(),
    paid: z.object({ count: z.number().int(), amount: z.string() }),
    events: z.object({ held: z.string(), owedBack: z.string(), released: z.string(), refunded: z.string(), merged: z.boolean(), straysOwed: z.string() }).describe('What the events say'),
    ledger: z.object({ accountExists: z.boolean(), balance: z.string(), heldDeposits: z.string(), held: z.string() }).describe('What the ledger shows'),
    missing: z.array(Deposit).describe('Held deposits the ledger does not show with their exact amount'),
    owedBack: z.array(Deposit).describe('Late deposits still owed back, standing on the ledger'),
    notClaimed: z.array(Deposit).describe('Settled deposits the ledger still shows'),
    unexpected: z.array(z.object({ balanceId: z.string(), amount: z.string() })).describe('Claimable balances for the escrow no event accounts for: listed, not counted'),
    platform: z.object({ received: z.string(), fees: z.string() }).describe('What the platform received from the escrow on the ledger, and its fee lines: received beyond them is a problem'),
    strays: z
      .array(z.object({ operationId: z.string(), txHash: z.string(), from: z.string(), amount: z.string(), status: z.enum(['OWED', 'RETURNED']), returnedTxHash: z.string().nullable() }))
      .describe('Money paid straight into the escrow account, with its sender: owed back until a settlement returns it'),
    rounds: z.array(z.object({ settlementId: z.string(), round: z.number().int(), path: z.string(), txHash: z.string(), ok: z.boolean(), problems: Problems })),
    problems: Problems,
    ok: z.boolean(),
  })
  .describe('EscrowReconciliation');

export interface ReconciliationDeps extends ConsistencyDeps {
  escrows: EscrowReadModel;
  reservations: ReservationReadModel;
  escrow: EscrowLedger;
  isAuditor: (tenantId: string, userId: string) => Promise<boolean>;
}

const PROJECTIONS = ['escrow', 'reservations'];

export const makeReconciliationRoutes = (deps: ReconciliationDeps): RouteDef[] => {
  const reconcile = async (doc: EscrowDoc) => {
    const rows = await deps.reservations.byPools([doc.escrow.poolId!]);
    const facts = escrowFactsOfReads(doc.escrow, rows.map(factsOfRow));
    if (!facts) return null;
    const ledger = await ledgerCall(() => deps.escrow.reconciliationFacts(facts.escrowAccount, facts.rounds.map((r) => r.txHash)));
    return reconcileEscrow(facts, ledger);
  };

  const onePool = defineRoute({
    method: 'get',
    path: '/api/pools/{id}/escrow/reconciliation',
    summary: 'Reconcile a pool’s escrow with the ledger',
    description:
      'Bearer: the pool’s organiser or an auditor of its tenant (anyone else: 404). What the pool’s events say is held, settled and paid, against the ledger: every held deposit stands with its exact amount, every settled one is gone, every settlement round’s transaction exists, succeeded and paid exactly what its events say to whom, and the escrow account exists until the events say it was merged back. `ok` when everything agrees; `problems` names each disagreement. Machine-readable; `pnpm cli escrow reconcile` does the same for one pool or all, from the streams.',
    tags: ['Escrow', 'Audit'],
    auth: 'required',
    tenant: 'optional',
    params: z.object({ id: z.string().uuid() }),
    success: { status: 200, description: 'The reconciliation report', schema: EscrowReconciliationSchema },
    errors: [401, 404, 503],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const auth = ctx.auth!;
      const tenantId = ctx.tenant?.id ?? auth.tenantId;
      const doc = await deps.escrows.inTenant(tenantId, ctx.params.id);
      const allowed = doc && (doc.escrow.organiserId === auth.userId || (auth.tenantId === tenantId && (await deps.isAuditor(tenantId, auth.userId))));
      const report = allowed ? await reconcile(doc) : null;
      if (!report) throw new NotFoundError('escrow');
      return { data: report };
    },
  });

  const allPools = defineRoute({
    method: 'get',
    path: '/api/audit/reconciliation',
    summary: 'Reconcile every escrow of the tenant with the ledger (auditors)',
    description:
      'Bearer: an auditor of the tenant (anyone else: 404). The reconciliation of each published pool’s escrow, a page at a time (oldest pool id first), and `ok` for the page. The operator’s `pnpm cli escrow reconcile` runs every pool of every tenant with a progress bar.',
    tags: ['Audit'],
    auth: 'required',
    tenant: 'optional',
    query: PageQuery,
    success: { status: 200, description: 'A page of reconciliation reports', schema: paginated(EscrowReconciliationSchema).extend({ ok: z.boolean() }) },
    errors: [400, 401, 404, 503],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const auth = ctx.auth!;
      const tenantId = ctx.tenant?.id ?? auth.tenantId;
      if (auth.tenantId !== tenantId || !(await deps.isAuditor(tenantId, auth.userId))) throw new NotFoundError('reconciliation');
      const q = ctx.query as z.infer<typeof PageQuery>;
      const { docs, total } = await deps.escrows.openedInTenant(tenantId, q.page, q.limit);
      const items = [];
      for (const doc of docs) {
        const report = await reconcile(doc);
        if (report) items.push(report);
      }
      return { data: { items, pagination: pagination(q.page, q.limit, total), ok: items.every((r) => r.ok) } };
    },
  });

  return [onePool, allPools];
};
