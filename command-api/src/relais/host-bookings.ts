import { randomUUID } from 'node:crypto';
import { NotFoundError, decideHost, hostAggregate, type HostCommand } from '@cagnotte/domain';
import type { EventMetadata } from '@cagnotte/event-schemas';
import { executeCommand } from '../shared/execute-command';
import { loadState } from '../shared/run-command';
import { hostRuntimeOf, relaisHostStream } from './hosts';
import type { HostBooking, RelaisDeps } from './ports';

// A community host's capacity, booked by a shipment (part D) before its pool command and given back when the shipment
// is not created after all. The host's stream decides: the errors are the domain's, so HTTP maps them (409
// host_capacity_exceeded, 400 host_too_heavy, 409 host_unavailable, 404 host_not_found). Both are idempotent per
// shipment: booking the same shipment again, or releasing it twice, changes nothing.

const systemMetadata = (tenantId: string, now: string): EventMetadata => ({
  tenantId,
  actor: { kind: 'system', id: 'relais-shipments' },
  correlationId: randomUUID(),
  causationId: null,
  occurredAt: now,
});

const onHost = async (deps: RelaisDeps, hostId: string, command: (now: string) => HostCommand): Promise<void> => {
  const current = await loadState(deps.services.store, relaisHostStream(hostId), hostAggregate);
  if (current.status === 'none') throw new NotFoundError('host');
  const now = deps.clock().toISOString();
  await executeCommand(hostRuntimeOf(deps), {
    stream: relaisHostStream(hostId),
    aggregate: hostAggregate,
    decide: (state) => decideHost(command(now), state),
    metadata: systemMetadata(current.tenantId, now),
  });
};

/** Books a shipment's parcels on a community host's day, within its capacity. */
export const bookHostParcels = async (deps: RelaisDeps, booking: HostBooking): Promise<void> =>
  onHost(deps, booking.hostId, (now) => ({
    type: 'BookParcels',
    data: { shipmentId: booking.shipmentId, poolId: booking.poolId, date: booking.date, parcels: booking.parcels, weightG: booking.weightG },
    metadata: { now },
  }));

/** Gives a booking back (nothing when there is none, or it was released already). */
export const releaseHostBooking = async (deps: RelaisDeps, booking: { hostId: string; shipmentId: string }): Promise<void> =>
  onHost(deps, booking.hostId, (now) => ({ type: 'ReleaseBooking', data: { shipmentId: booking.shipmentId }, metadata: { now } }));
