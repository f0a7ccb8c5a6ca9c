import { z } from 'zod';
import { AppError, ValidationError } from '@cagnotte/domain/errors';
import { defineRoute, type RouteDef } from '@cagnotte/infra';
import { PoolStateSchema, cutAt, parseAt, poolStateAt, stateEventOfRow, type AuditReadModel, type ExtraFolds } from '@cagnotte/read-models';
import { waitForMinPosition, type ConsistencyDeps } from '../shared/consistency';
import { requireHistoryReader } from './access';
import { AUDIT_DOC, AUDIT_PROJECTIONS } from './history-routes';

/** The pool exists, but did not yet at the point asked for: a 404 of its own, so it reads apart from a missing pool. */
export class NotYetExistingError extends AppError {
  readonly kind = 'not_found';
  constructor(message: string) {
    super('not_yet_existing', message);
  }
}

const StateQuery = z.object({
  at: z
    .string()
    .max(64)
    .optional()
    .describe('A feed position "<commit>-<prepare>" (as in X-Event-Position and each history item), a stream revision (a plain integer), or an ISO-8601 date-time with its zone. Absent: now.'),
});

export interface AuditStateDeps extends ConsistencyDeps {
  audit: AuditReadModel;
  /** Views of the pool folded beside it (the escrow's, when it lands), each a key of the answer. */
  extraFolds?: ExtraFolds;
  /** The request clock: the state without `at` is rendered now (lazy expiry). */
  clock?: () => Date;
}

export const makeAuditStateRoute = (deps: AuditStateDeps): RouteDef => {
  const { audit } = deps;
  const clock = deps.clock ?? (() => new Date());
  return defineRoute({
    method: 'get',
    path: '/api/pools/{id}/state',
    summary: 'A pool as it was at a point of its history',
    description: `Time travel: the pool's events up to and including \`at\` (a position, a revision, or a time compared with each event's \`occurredAt\`), folded with the read models' own folds, always as a prefix of the stream (it stops at the first event past \`at\`). \`pool\` is the organiser's (owner) view, \`reservations\` every reservation placed by then; both are rendered at \`at\` when it is a time, else when the last event included occurred (now without \`at\`), so a PENDING reservation past its expiry reads EXPIRED. \`asOf\` names the last event included. \`at\` before the pool's first event: 404 \`not_yet_existing\`; an \`at\` that is none of the three forms: 400. ${AUDIT_DOC.access} ${AUDIT_DOC.minPosition}`,
    tags: ['Audit'],
    auth: 'required',
    tenant: 'optional',
    params: z.object({ id: z.string().uuid() }),
    query: StateQuery,
    success: { status: 200, description: 'The pool and its reservations as of the point', schema: PoolStateSchema },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, AUDIT_PROJECTIONS);
      const { id } = ctx.params as { id: string };
      const raw = (ctx.query as z.infer<typeof StateQuery>).at;
      const at = raw === undefined ? null : parseAt(raw);
      if (raw !== undefined && !at) throw new ValidationError({ at: ['must be a position "<commit>-<prepare>", a revision (an integer) or an ISO-8601 date-time with its zone'] });
      await requireHistoryReader(audit, ctx, id);
      const events = (await audit.stream(id)).map(stateEventOfRow);
      const state = poolStateAt(cutAt(events, at), { at: at === null ? clock() : at.kind === 'time' ? at.time : undefined, extraFolds: deps.extraFolds });
      if (!state) {
        const first = events[0];
        throw new NotYetExistingError(`The pool did not exist yet at ${raw}${first ? `: its history starts at ${first.position.commit}-${first.position.prepare} (revision 0, ${first.metadata.occurredAt})` : ''}`);
      }
      return { data: state };
    },
  });
};
