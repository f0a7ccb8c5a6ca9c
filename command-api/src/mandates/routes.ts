import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError, acceptedMandate, decideMandate, findMandate, mandateAggregate } from '@cagnotte/domain';
import { MandateKind, currentMandate } from '@cagnotte/event-schemas';
import { defineRoute, type RouteDef } from '@cagnotte/infra';
import { MandateSchema, mandateView } from '@cagnotte/read-models';
import { accountStream, positionHeader, type AccountCommandDeps } from '../shared/context';
import { executeCommand, fromRequest } from '../shared/execute-command';

export type MandateRouteDeps = AccountCommandDeps;

export const makeMandateRoutes = (deps: MandateRouteDeps): RouteDef[] => {
  const { clock } = deps;

  const accept = defineRoute({
    method: 'post',
    path: '/api/mandates',
    summary: 'Accept the current text of a mandate',
    description:
      'Bearer. Records the acceptance of the **current** server text of `kind` (its version and sha256, your IP and the time) as an event. Accepting a text already accepted and not revoked answers that same record.',
    tags: ['Auth'],
    auth: 'required',
    body: z.object({ kind: MandateKind }),
    success: { status: 201, description: 'The mandate', schema: MandateSchema },
    errors: [400, 401],
    handler: async (ctx) => {
      const now = clock().toISOString();
      const { kind } = ctx.body;
      const text = currentMandate(kind);
      const { state, position } = await executeCommand(deps, {
        stream: accountStream(ctx.auth!.userId),
        aggregate: mandateAggregate,
        decide: (mandates) => decideMandate({ type: 'AcceptMandate', data: { mandateId: randomUUID(), kind, text, ip: ctx.ip.slice(0, 64) }, metadata: { now } }, mandates),
        ...fromRequest(ctx, ctx.auth!.tenantId, now),
      });
      // The standing acceptance of this text: the one just recorded, or the one that made this a no-op.
      return { status: 201, data: mandateView(acceptedMandate(state, kind, text)!), headers: positionHeader(position) };
    },
  });

  const revoke = defineRoute({
    method: 'delete',
    path: '/api/mandates/{id}',
    summary: 'Revoke a mandate',
    description:
      'Bearer, owner only (404 otherwise). Records the revocation (time and IP) as an event; the record stays, with status REVOKED. It applies to what comes next: pools that already recorded a COMMISSION acceptance keep it in their own history. Revoking twice answers the same record.',
    tags: ['Auth'],
    auth: 'required',
    params: z.object({ id: z.string().uuid() }),
    success: { status: 200, description: 'The revoked mandate', schema: MandateSchema },
    errors: [401, 404],
    handler: async (ctx) => {
      const now = clock().toISOString();
      const { state, position } = await executeCommand(deps, {
        stream: accountStream(ctx.auth!.userId),
        aggregate: mandateAggregate,
        decide: (mandates) => decideMandate({ type: 'RevokeMandate', data: { mandateId: ctx.params.id, ip: ctx.ip.slice(0, 64) }, metadata: { now } }, mandates),
        ...fromRequest(ctx, ctx.auth!.tenantId, now),
      });
      const mandate = findMandate(state, ctx.params.id);
      if (!mandate) throw new NotFoundError('mandate');
      return { data: mandateView(mandate), headers: positionHeader(position) };
    },
  });

  return [accept, revoke];
};
