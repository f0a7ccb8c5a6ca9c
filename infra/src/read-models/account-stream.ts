import { evolveAccount, type Account } from '@cagnotte/domain';
import { parseEvent, type DomainEvent } from '@cagnotte/event-schemas';
import type { EventStore } from '../event-store/port';

export const accountStreamId = (userId: string) => `account-${userId}`;

/**
 * The account as its own stream says now. Grants and mandates are read this way rather than from a table:
 * one short stream per user, always consistent with the last command, and owner-only by construction.
 */
export const readAccountState = async (store: EventStore, userId: string): Promise<Account | null> => {
  const events = await store.readStream(accountStreamId(userId));
  return events.map((e) => parseEvent(e) as DomainEvent).reduce(evolveAccount, null);
};
