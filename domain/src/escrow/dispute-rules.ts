import { IllegalStateError } from '../errors';

// The dispute rules every escrow shares (a pool's reservations and a deal alike): one rule, one place (STYLE.md 11).

const DAY_MS = 86_400_000;
export const plusDays = (iso: string, days: number): string => new Date(Date.parse(iso) + days * DAY_MS).toISOString();
/** Whether `deadline` is reached at `now` (a null deadline never is). */
export const reached = (deadline: string | null, now: string): boolean => deadline !== null && Date.parse(deadline) <= Date.parse(now);

/** What the rules read of a dispute: its status and its two clocks. */
export interface DisputeClock {
  status: 'OPEN' | 'CONTESTED' | 'REFUNDED' | 'WITHDRAWN' | 'LAPSED';
  respondBy: string;
  lapsesAt: string | null;
}

/** Whether the dispute still holds the money (nobody ended it yet). */
export const isOpenDispute = (d: DisputeClock | null): d is DisputeClock => d !== null && (d.status === 'OPEN' || d.status === 'CONTESTED');

/** When an open dispute lapses to the buyer: its respondBy while OPEN, its lapsesAt once CONTESTED. */
export const lapseTime = (d: DisputeClock): string => (d.status === 'OPEN' ? d.respondBy : d.lapsesAt!);

/** The rule for an unresolved dispute: from its lapse time on, what it holds goes back to the buyer. */
export const hasLapsed = (d: DisputeClock, now: string): boolean => isOpenDispute(d) && reached(lapseTime(d), now);

/** From its lapse time on, a dispute belongs to the lapse rule: nobody answers, contests or withdraws it any more. */
export const requireNotLapsed = (d: DisputeClock, now: string): void => {
  const at = lapseTime(d);
  if (reached(at, now)) throw new IllegalStateError('dispute_lapsed', `The dispute lapsed at ${at}: what it holds goes back to the buyer`);
};

/** A dispute is opened only before the inspection period ends (null: it has not started, so it is not over). */
export const requireWithinInspection = (inspectionEndsAt: string | null, now: string): void => {
  if (reached(inspectionEndsAt, now)) throw new IllegalStateError('inspection_period_over', 'The inspection period is over');
};

/** When the other side must answer a dispute opened `now`: the tenant's response days later. */
export const respondByOf = (now: string, disputeResponseDays: number): string => plusDays(now, disputeResponseDays);
