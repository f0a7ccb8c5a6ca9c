import { eventHash } from '@cagnotte/infra';
import type { LinkBreak, StoredEvent } from '@cagnotte/read-models';

/**
 * Whether an event's hash link holds, from what is stored: its hash recomputes from its content (with the prevHash it
 * stores, docs/event-store.md), and that prevHash is the stored hash of revision − 1 of the same stream (null at
 * revision 0). `predecessorHash` is undefined when revision − 1 is not there.
 */
export const linkBreak = (e: StoredEvent, predecessorHash: string | undefined): LinkBreak['reason'] | null => {
  if (eventHash(e.prevHash, e) !== e.hash) return 'content does not match its hash';
  if (e.revision === 0n) return e.prevHash === null ? null : 'previous hash does not match';
  if (predecessorHash === undefined) return 'previous event is missing';
  return e.prevHash === predecessorHash ? null : 'previous hash does not match';
};

export interface VerifiedHistory {
  items: Array<{ event: StoredEvent; verified: boolean }>;
  chain: { verified: boolean; firstBroken: LinkBreak | null };
}

/** Checks each event's link (in the order given, oldest first) and names the first that breaks. */
export const verifyHistory = (entries: ReadonlyArray<{ event: StoredEvent; predecessorHash: string | undefined }>): VerifiedHistory => {
  let firstBroken: LinkBreak | null = null;
  const items = entries.map(({ event, predecessorHash }) => {
    const reason = linkBreak(event, predecessorHash);
    if (reason && !firstBroken) firstBroken = { revision: Number(event.revision), eventId: event.id, reason };
    return { event, verified: reason === null };
  });
  return { items, chain: { verified: firstBroken === null, firstBroken } };
};

/** A whole stream read in order (the CLI reads it from the event store): each event's predecessor is the one before it. */
export const verifyStreamEvents = (events: readonly StoredEvent[]): VerifiedHistory => {
  const byRevision = new Map(events.map((e) => [e.revision, e.hash]));
  return verifyHistory(events.map((event) => ({ event, predecessorHash: byRevision.get(event.revision - 1n) })));
};
