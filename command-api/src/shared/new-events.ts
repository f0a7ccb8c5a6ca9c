import { randomUUID } from 'node:crypto';
import { eventRegistry, type DomainEvent, type EventMetadata } from '@cagnotte/event-schemas';
import type { NewEvent } from '@cagnotte/infra';

/**
 * Stamps decided events with ids, schema versions and metadata, and checks each against its published
 * schema before it is appended: the log is immutable, so an event every reader would reject must never
 * get in (it would stop every projection behind it). A failure here is our bug and surfaces as a 500.
 */
export const toNewEvents = (events: DomainEvent[], metadata: EventMetadata): NewEvent[] =>
  events.map((e) => {
    const stamped = { id: randomUUID(), type: e.type, schemaVersion: eventRegistry.currentVersion(e.type), data: e.data, metadata };
    eventRegistry.parse(stamped);
    return stamped;
  });
