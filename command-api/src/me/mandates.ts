import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError, decideAcceptMandate, decideRevokeMandate, type MandateRecord } from '@cagnotte/domain';
import { MandateKind } from '@cagnotte/event-schemas';
import { defineRoute, formatPosition, type Position, type RouteDef } from '@cagnotte/infra';
import { MANDATE_TEXTS, mandateHash } from '../identity/mandates';
import { accountStream, loadAccount, metadataFor } from '../shared/context';
import { runCommand } from '../shared/run-command';
import { accountAggregate, type MeDeps } from './personas';

const MandateSchema = z
  .object({
    id: z.string().uuid(),
    kind: MandateKind,
    status: z.enum(['ACCEPTED', 'REVOKED']),
    version: z.string().describe('Version of the text accepted'),
    hash: z.string().describe('sha256 (hex) of the exact text accepted'),
    current: z.boolean().describe('Whether the accepted text is the current one (a new version needs a new acceptance)'),
    acceptedAt: z.string(),
    acceptedIp: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .describe('Mandate');

const MandateText = z.object({ kind: MandateKind, text: z.string(), hash: z.string(), version: z.string() }).describe('MandateText');

export const mandateTexts = () =>
  (Object.keys(MANDATE_TEXTS) as Array<keyof typeof MANDATE_TEXTS>).map((kind) => ({
    kind,
    text: MANDATE_TEXTS[kind].text,
    hash: mandateHash(MANDATE_TEXTS[kind].text),
    version: MANDATE_TEXTS[kind].version,
  }));

const positionHeaders = (p: Position | null): Record<string, string> => (p ? { 'X-Event-Position': formatPosition(p) } : {});

const view = (m: MandateRecord) => ({
  id: m.mandateId,
  kind: m.kind,
  status: m.status,
  version: m.version,
  hash: m.hash,
  current: m.version === MANDATE_TEXTS[m.kind].version && m.hash === mandateHash(MANDATE_TEXTS[m.kind].text),
  acceptedAt: m.acceptedAt,
  acceptedIp: m.acceptedIp,
  revokedAt: m.revokedAt,
});

export const makeMandateRoutes = ({ services, clock }: MeDeps): RouteDef[] => [
  defineRoute({
    method: 'get',
    path: '/api/mandates',
    summary: 'My mandates and the current mandate texts',
    description: 'Bearer. Every acceptance and revocation of the caller, newest first, plus the server-authoritative texts (FEE, COMMISSION, RELAIS) with their version and sha256.',
    tags: ['Auth'],
    auth: 'required',
    success: { status: 200, description: 'Mandates and texts', schema: z.object({ mandates: z.array(MandateSchema), texts: z.array(MandateText) }) },
    errors: [401],
    handler: async (ctx) => {
      const account = await loadAccount(services.store, ctx.auth!.userId);
      const mandates = [...(account?.mandates ?? [])].reverse().map(view);
      return { data: { mandates, texts: mandateTexts() } };
    },
  }),
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
      return { status: 201, data: view(mandate!), headers: positionHeaders(outcome.position) };
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
      return { data: view(mandate!), headers: positionHeaders(outcome.position) };
    },
  }),
];
