import type { PointUnavailableReport, RelaisDeps } from './ports';

/** Every pool referencing the point raises PickupPointUnavailable (part C). */
export const reportPointUnavailable = async (_deps: RelaisDeps, _report: PointUnavailableReport): Promise<{ pools: number }> => {
  throw new Error('reportPointUnavailable: not built yet');
};
