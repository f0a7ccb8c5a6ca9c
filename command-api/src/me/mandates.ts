import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError, decideAcceptMandate, decideRevokeMandate, type MandateRecord } from '@cagnotte/domain';
import { MandateKind } from '@cagnotte/event-schemas';
import { MandateSchema, defineRoute, formatPosition, mandateView, type Position, type RouteDef } from '@cagnotte/infra';
import { MANDATE_TEXTS, mandateHash } from '../identity/mandates';
import { accountStream, metadataFor } from '../shared/context';
import { runCommand } from '../shared/run-command';
import { accountAggregate, type MeDeps } from './personas';

const positionHeaders = (p: Position | null): Record<string, string> => (p ? { 'X-Event-Position': formatPosition(p) } : {});

export const makeMandateRoutes = ({ services, clock }: MeDeps): RouteDef[] => [
  defineRoute({
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
      const auth = ctx.auth!;
      const text = MANDATE_TEXTS[ctx.body.kind];
      let mandate: MandateRecord | null = null;
      const outcome = await runCommand(
        services.store,
        accountStream(auth.userId),
        accountAggregate,
        (state) => {
          const d = decideAcceptMandate(state, { mandateId: randomUUID(), kind: ctx.body.kind, text: { version: text.version, hash: mandateHash(text.text) }, ip: ctx.ip.slice(0, 64) }, clock().toISOString());
          mandate = d.mandate;
          return d.events;
        },
        metadataFor(ctx, auth.tenantId, clock().toISOString()),
      );
      return { status: 201, data: mandateView(mandate!), headers: positionHeaders(outcome.position) };
    },
  }),
  defineRoute({
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
      const auth = ctx.auth!;
      let mandate: MandateRecord | null = null;
      const outcome = await runCommand(
        services.store,
        accountStream(auth.userId),
        accountAggregate,
        (state) => {
          if (!state) throw new NotFoundError('mandate');
          const d = decideRevokeMandate(state, ctx.params.id, ctx.ip.slice(0, 64), clock().toISOString());
          mandate = d.mandate;
          return d.events;
        },
        metadataFor(ctx, auth.tenantId, clock().toISOString()),
      );
      return { data: mandateView(mandate!), headers: positionHeaders(outcome.position) };
    },
  }),
];
