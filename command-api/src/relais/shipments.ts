import type { RelaisDeps, ShipmentStatusOutcome, ShipmentStatusReport } from './ports';

/** A tracking update, forward only; arrival starts the inspection period (part D). */
export const recordShipmentStatus = async (_deps: RelaisDeps, _report: ShipmentStatusReport): Promise<ShipmentStatusOutcome> => {
  throw new Error('recordShipmentStatus: not built yet');
};
