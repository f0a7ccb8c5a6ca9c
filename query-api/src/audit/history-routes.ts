import { z } from 'zod';
import { ESCROW_HISTORY_TYPES } from '@cagnotte/event-schemas';
import { PageQuery, defineRoute, paginated, pagination, type RouteDef } from '@cagnotte/infra';
import { AuditEventSchema, ChainSchema, auditEventView, storedOfRow, type AuditReadModel, type HistoryFilter } from '@cagnotte/read-models';
import { waitForMinPosition, type ConsistencyDeps } from '../shared/consistency';
import { requireHistoryReader } from './access';
import { verifyHistory } from './verify';

export const AUDIT_PROJECTIONS = ['audit'];

export const AuditHistoryPage = paginated(AuditEventSchema).extend({ chain: ChainSchema }).describe('AuditHistory');
const PoolParams = z.object({ id: z.string().uuid() });
const ReservationParams = PoolParams.extend({ reservationId: z.string().uuid() });

export const AUDIT_DOC = {
  access:
    'Bearer. The auditors of the pool\'s tenant (granted by an operator: `pnpm cli auditor grant`) and the pool\'s organiser; anyone else, and a pool of another tenant than the request\'s, is a 404.',
  stored:
    'Oldest first. `data` and `metadata` are served as stored, with the `schemaVersion` they were written with (not upcast to the current schema): the hash covers exactly that content, so an auditor can recompute it (docs/audit.md). Values shaped like secrets in old free-form data are withheld and listed in `redacted`; so is personal data (the IP of a request) for readers who are not auditors.',
  verified:
    '`verified` per event: its hash recomputes from its stored content and its `prevHash` is the stored hash of revision − 1. `chain` covers the events of the page and their links to their predecessors: walking every page checks the whole stream.',
  minPosition: 'Send `X-Min-Position` (a command\'s `X-Event-Position`) to wait until the audit read model has it.',
};

export interface AuditHistoryDeps extends ConsistencyDeps {
  audit: AuditReadModel;
}

export const makeAuditHistoryRoutes = (deps: AuditHistoryDeps): RouteDef[] => {
  const { audit } = deps;

  /** One page of the filtered history, each event's link checked against the stored hash of its predecessor. */
  const page = async (poolId: string, filter: HistoryFilter, q: z.infer<typeof PageQuery>, reader: 'AUDITOR' | 'ORGANISER' | 'BUYER') => {
    const { rows, total } = await audit.history(poolId, filter, q.page, q.limit);
    const checked = verifyHistory(rows.map((r) => ({ event: storedOfRow(r), predecessorHash: r.has_predecessor ? (r.predecessor_hash ?? undefined) : undefined })));
    return { data: { items: checked.items.map((i) => auditEventView(i.event, i.verified, { personal: reader === 'AUDITOR' })), pagination: pagination(q.page, q.limit, total), chain: checked.chain } };
  };

  const poolHistory = defineRoute({
    method: 'get',
    path: '/api/pools/{id}/history',
    summary: "A pool's full event history",
    description: `Every event of the pool's stream (\`pool-<id>\`): lifecycle, reservations, escrow, listing, whatever its type. ${AUDIT_DOC.access} ${AUDIT_DOC.stored} ${AUDIT_DOC.verified} ${AUDIT_DOC.minPosition}`,
    tags: ['Audit'],
    auth: 'required',
    tenant: 'optional',
    params: PoolParams,
    query: PageQuery,
    success: { status: 200, description: 'A page of the history and the state of its hash links', schema: AuditHistoryPage },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, AUDIT_PROJECTIONS);
      const { id } = ctx.params as { id: string };
      const reader = await requireHistoryReader(audit, ctx, id);
      return page(id, {}, ctx.query as z.infer<typeof PageQuery>, reader);
    },
  });

  const escrowHistory = defineRoute({
    method: 'get',
    path: '/api/pools/{id}/escrow/history',
    summary: "A pool's escrow history",
    description: `The events of the pool's stream that make its escrow's history: ${[...ESCROW_HISTORY_TYPES].join(', ')} (and the escrow's later events as they are added). ${AUDIT_DOC.access} ${AUDIT_DOC.stored} ${AUDIT_DOC.verified} ${AUDIT_DOC.minPosition}`,
    tags: ['Audit'],
    auth: 'required',
    tenant: 'optional',
    params: PoolParams,
    query: PageQuery,
    success: { status: 200, description: 'A page of the escrow history and the state of its hash links', schema: AuditHistoryPage },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, AUDIT_PROJECTIONS);
      const { id } = ctx.params as { id: string };
      const reader = await requireHistoryReader(audit, ctx, id);
      return page(id, { types: ESCROW_HISTORY_TYPES }, ctx.query as z.infer<typeof PageQuery>, reader);
    },
  });

  const reservationHistory = defineRoute({
    method: 'get',
    path: '/api/pools/{id}/reservations/{reservationId}/history',
    summary: "A reservation's event history",
    description: `The events of the pool's stream whose \`data.reservationId\` is this reservation. Also readable by the reservation's own buyer (their own reservation only); a reservation not in this pool is a 404. ${AUDIT_DOC.access} ${AUDIT_DOC.stored} ${AUDIT_DOC.verified} ${AUDIT_DOC.minPosition}`,
    tags: ['Audit'],
    auth: 'required',
    tenant: 'optional',
    params: ReservationParams,
    query: PageQuery,
    success: { status: 200, description: "A page of the reservation's history and the state of its hash links", schema: AuditHistoryPage },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, AUDIT_PROJECTIONS);
      const { id, reservationId } = ctx.params as { id: string; reservationId: string };
      const reader = await requireHistoryReader(audit, ctx, id, reservationId);
      return page(id, { reservationId }, ctx.query as z.infer<typeof PageQuery>, reader);
    },
  });

  return [poolHistory, escrowHistory, reservationHistory];
};
