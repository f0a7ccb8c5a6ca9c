import { z } from 'zod';
import type { MandateRecord } from '@cagnotte/domain';
import { MandateKind, currentMandate } from '@cagnotte/event-schemas';

export const MandateSchema = z
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

export const MandateTextSchema = z.object({ kind: MandateKind, text: z.string(), hash: z.string(), version: z.string() }).describe('MandateText');

export const mandateView = (m: MandateRecord): z.infer<typeof MandateSchema> => {
  const current = currentMandate(m.kind);
  return {
    id: m.mandateId,
    kind: m.kind,
    status: m.status,
    version: m.version,
    hash: m.hash,
    current: m.version === current.version && m.hash === current.hash,
    acceptedAt: m.acceptedAt,
    acceptedIp: m.acceptedIp,
    revokedAt: m.revokedAt,
  };
};
