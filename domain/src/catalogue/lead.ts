import type { Attribution, EventData, LeadEvent, VisitorEvent } from '@cagnotte/event-schemas';
import { ConflictError } from '../errors';

/*
 * White-label lead capture: two small aggregates. A visitor (stream `visitor-<tenant>-<visitorId>`) records its
 * first touch once; a lead (stream `lead-<leadId>`) records one pilot request, carrying the visitor's first touch.
 */

export type Visitor = { status: 'none' } | { status: 'touched'; visitorId: string; attribution: Attribution; touchedAt: string };

export const initialVisitor = (): Visitor => ({ status: 'none' });

export const evolveVisitor = (state: Visitor, event: VisitorEvent): Visitor =>
  event.type === 'VisitorFirstTouched' && state.status === 'none'
    ? { status: 'touched', visitorId: event.data.visitorId, attribution: event.data.attribution, touchedAt: event.data.touchedAt }
    : state;

/** The first touch is kept: a visitor already touched records nothing more (its earlier attribution stands). */
export const decideFirstTouch = (data: EventData<'VisitorFirstTouched'>, state: Visitor): VisitorEvent[] =>
  state.status === 'none' ? [{ type: 'VisitorFirstTouched', data }] : [];

/** The attribution a visitor's leads carry: its first touch, once recorded. */
export const firstTouchOf = (state: Visitor, fallback: Attribution): Attribution => (state.status === 'touched' ? state.attribution : fallback);

export type Lead = { status: 'none' } | { status: 'requested'; leadId: string; tenantId: string; requestedAt: string };

export const initialLead = (): Lead => ({ status: 'none' });

export const evolveLead = (state: Lead, event: LeadEvent): Lead =>
  event.type === 'PilotRequested' ? { status: 'requested', leadId: event.data.leadId, tenantId: event.data.tenantId, requestedAt: event.data.requestedAt } : state;

/** A lead is requested once: its id is fresh, so a second request on the same stream is a conflict. */
export const decidePilotRequest = (data: EventData<'PilotRequested'>, state: Lead): LeadEvent[] => {
  if (state.status !== 'none') throw new ConflictError('lead_exists', `Lead ${data.leadId} already exists`);
  return [{ type: 'PilotRequested', data }];
};
