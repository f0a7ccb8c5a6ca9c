import { z } from 'zod';
import type { PoolClosingDoc } from './fold';

/*
 * How a pool closed and the terms its funds are released on, as they are served: beside the GroupBuy, the escrow's
 * view shows the same closing. Built from allowlists like the rest of the pool's views.
 */

const ReleaseAfter = z.enum(['CLOSE', 'RECEIPT']);

export const ReleaseTermsView = z
  .object({
    after: ReleaseAfter.describe('CLOSE: the funds are released at closing; RECEIPT: each buyer confirms receipt, or their inspection period passes'),
    inspectionDays: z.number().int().describe('Days a buyer has, from delivery, to confirm receipt or dispute'),
    disputeResponseDays: z.number().int().describe('Days the organiser has to answer a dispute (refund or contest)'),
  })
  .describe('ReleaseTerms');

export const PoolClosing = z
  .object({
    outcome: z.enum(['SUCCEEDED', 'FAILED']),
    reason: z.enum(['DEADLINE', 'ORGANISER']),
    closedAt: z.string(),
    paidUnits: z.number().int().describe('Units of the PAID reservations at closing: what decided the outcome'),
    paidAmount: z.string().describe('Deposits of the PAID reservations at closing (decimal string)'),
    finalPrices: z.array(z.object({ unitId: z.string(), price: z.string() })).describe('GROUPS: the unit prices of the tiers reached by paid units'),
    release: ReleaseTermsView.describe('The release terms frozen at closing (the pool\'s, else the tenant\'s defaults)'),
    deliveredAt: z.string().nullable().describe('When the organiser marked the goods delivered (RECEIPT pools): the inspection period starts'),
    inspectionEndsAt: z.string().nullable().describe('After it, every reservation neither confirmed nor disputed is accepted on its own'),
  })
  .describe('PoolClosing');
export type PoolClosing = z.infer<typeof PoolClosing>;

/** `config.release` as the pool was configured (buyers must know what releases their money before they pay). */
export const ReleaseConfigView = z
  .object({
    after: ReleaseAfter,
    inspectionDays: z.number().int().optional().describe('Absent: the tenant\'s default applies at closing'),
  })
  .describe('PoolReleaseConfig');
export type ReleaseConfigView = z.infer<typeof ReleaseConfigView>;

type Loose = Record<string, unknown> | null | undefined;
const str = (v: unknown): v is string => typeof v === 'string';
const int = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const after = (v: unknown): v is 'CLOSE' | 'RECEIPT' => v === 'CLOSE' || v === 'RECEIPT';

/** `config.release`, each key picked; absent when the stored value is not release terms. */
export const releaseConfigView = (release: unknown): ReleaseConfigView | undefined => {
  const r = release as Loose;
  if (!r || typeof r !== 'object' || !after(r.after)) return undefined;
  return { after: r.after, ...(int(r.inspectionDays) ? { inspectionDays: r.inspectionDays } : {}) };
};

/** The closing of a pools (or escrow) document; null while the pool has not closed (and on documents from before closings). */
export const closingView = (closing: PoolClosingDoc | null | undefined): PoolClosing | null => {
  if (!closing) return null;
  const release = (closing.release ?? {}) as Loose;
  return {
    outcome: closing.outcome,
    reason: closing.reason,
    closedAt: closing.closedAt,
    paidUnits: closing.paidUnits,
    paidAmount: closing.paidAmount,
    finalPrices: (closing.finalPrices ?? []).map((p) => ({ unitId: String(p.unitId), price: String(p.price) })),
    release: {
      after: after(release?.after) ? release.after : 'CLOSE',
      inspectionDays: int(release?.inspectionDays) ? release.inspectionDays : 0,
      disputeResponseDays: int(release?.disputeResponseDays) ? release.disputeResponseDays : 0,
    },
    deliveredAt: str(closing.deliveredAt) ? closing.deliveredAt : null,
    inspectionEndsAt: str(closing.inspectionEndsAt) ? closing.inspectionEndsAt : null,
  };
};
