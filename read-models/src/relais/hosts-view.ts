import { z } from 'zod';
import { HostProfile } from '@cagnotte/event-schemas';

/** A community host's statuses: `pending` until reviewed, then `active`, `temporarily_closed`, `retired` (final), or `rejected`. */
export const RelaisHostStatus = z.enum(['pending', 'active', 'temporarily_closed', 'retired', 'rejected']);
export type RelaisHostStatus = z.infer<typeof RelaisHostStatus>;

export const RelaisHost = z
  .object({
    id: z.string().uuid(),
    pointId: z.string().describe('`community:<hostId>`: the pick-up point a pool references'),
    tenantId: z.string().uuid(),
    userId: z.string().uuid().describe('The member who hosts'),
    status: RelaisHostStatus,
    profile: HostProfile,
    appliedAt: z.string(),
    approvedAt: z.string().nullable(),
    updatedAt: z.string(),
  })
  .describe('RelaisHost');
export type RelaisHost = z.infer<typeof RelaisHost>;

/** What a host view is made of: the command side's state or the read model's document. */
export interface RelaisHostFacts {
  hostId: string;
  tenantId: string;
  userId: string;
  status: RelaisHostStatus;
  profile: z.infer<typeof HostProfile>;
  appliedAt: string;
  approvedAt: string | null;
  updatedAt: string;
}

export const relaisHostPointId = (hostId: string) => `community:${hostId}`;

export const relaisHostView = (h: RelaisHostFacts): RelaisHost => ({
  id: h.hostId,
  pointId: relaisHostPointId(h.hostId),
  tenantId: h.tenantId,
  userId: h.userId,
  status: h.status,
  profile: h.profile,
  appliedAt: h.appliedAt,
  approvedAt: h.approvedAt,
  updatedAt: h.updatedAt,
});

export const RelaisHostDay = z
  .object({
    date: z.string().describe('YYYY-MM-DD'),
    parcels: z.number().int().describe('Parcels booked that day (released bookings excluded)'),
    capacity: z.number().int().describe('The host’s parcels per day now'),
    remaining: z.number().int(),
    bookings: z.array(z.object({ shipmentId: z.string().uuid(), poolId: z.string().uuid(), parcels: z.number().int(), bookedAt: z.string() })),
  })
  .describe('RelaisHostDay');
export type RelaisHostDay = z.infer<typeof RelaisHostDay>;
