import { z } from 'zod';
import { event } from '../define';
import { Id, IsoDate } from '../common';
import { MandateKind } from '../pools';

// Mandates: a user's acceptances of the server's mandate texts (./texts.ts). The events live in the account's stream.

export const MandateAccepted = event(
  'MandateAccepted',
  1,
  z
    .object({
      mandateId: Id,
      userId: Id,
      kind: MandateKind,
      version: z.string().min(1).max(40),
      hash: z.string().regex(/^[0-9a-f]{64}$/),
      ip: z.string().max(64).nullable(),
      acceptedAt: IsoDate,
    })
    .strict(),
);


export const MandateRevoked = event(
  'MandateRevoked',
  1,
  z.object({ mandateId: Id, userId: Id, kind: MandateKind, ip: z.string().max(64).nullable(), revokedAt: IsoDate }).strict(),
);

