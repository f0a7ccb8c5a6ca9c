import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError, decideAcceptMandate, decideRevokeMandate } from '@cagnotte/domain';
import { MandateKind } from '@cagnotte/event-schemas';
import { MandateSchema, defineRoute, mandateView, type RouteDef } from '@cagnotte/infra';
import { MANDATE_TEXTS, mandateHash } from '../identity/mandates';
import { onAccount, positionHeader } from './account-command';
import type { MeDeps } from './personas';

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
      const text = MANDATE_TEXTS[ctx.body.kind];
      const { result, position } = await onAccount(services, clock, ctx, ctx.auth!.tenantId, (state) => {
        const d = decideAcceptMandate(state, { mandateId: randomUUID(), kind: ctx.body.kind, text: { version: text.version, hash: mandateHash(text.text) }, ip: ctx.ip.slice(0, 64) }, clock().toISOString());
        return { events: d.events, result: d.mandate };
      });
      return { status: 201, data: mandateView(result), headers: positionHeader(position) };
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
      const { result, position } = await onAccount(services, clock, ctx, ctx.auth!.tenantId, (state) => {
        if (!state) throw new NotFoundError('mandate');
        const d = decideRevokeMandate(state, ctx.params.id, ctx.ip.slice(0, 64), clock().toISOString());
        return { events: d.events, result: d.mandate };
      });
      return { data: mandateView(result), headers: positionHeader(position) };
    },
  }),
];
