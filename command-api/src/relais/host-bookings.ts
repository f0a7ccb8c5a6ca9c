import type { HostBooking, RelaisDeps } from './ports';

/** Books a shipment's parcels on a community host's day, within its capacity (part B). */
export const bookHostParcels = async (_deps: RelaisDeps, _booking: HostBooking): Promise<void> => {
  throw new Error('bookHostParcels: not built yet');
};

/** Gives a booking back (part B). */
export const releaseHostBooking = async (_deps: RelaisDeps, _booking: { hostId: string; shipmentId: string }): Promise<void> => {
  throw new Error('releaseHostBooking: not built yet');
};
