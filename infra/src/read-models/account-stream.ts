import { mandateAggregate, organiserGrantAggregate, type MandateRecord, type OrganiserGrant } from '@cagnotte/domain';
import { parseEvent, type DomainEvent } from '@cagnotte/event-schemas';
import type { EventStore } from '../event-store/port';

export const accountStreamId = (userId: string) => `account-${userId}`;

/**
 * The caller's mandates and organiser grants as their own stream says now (folded with the grant and mandate
 * aggregates). Grants and mandates are read this way rather than from a table: one short stream per user, always
 * consistent with the last command, and owner-only by construction.
 */
export const readAccountState = async (store: EventStore, userId: string): Promise<{ grants: OrganiserGrant[]; mandates: MandateRecord[] } | null> => {
  const events = (await store.readStream(accountStreamId(userId))).map((e) => parseEvent(e) as DomainEvent);
  const grants = events.reduce(organiserGrantAggregate.evolve, organiserGrantAggregate.initial());
  const mandates = events.reduce(mandateAggregate.evolve, mandateAggregate.initial());
  if (grants.status === 'none' || mandates.status === 'none') return null;
  return { grants: grants.grants, mandates: mandates.mandates };
};
