import { randomUUID } from 'node:crypto';
import { eventRegistry, parseEvent, type DomainEvent, type EventMetadata } from '@cagnotte/event-schemas';
import type { NewEvent } from '@cagnotte/infra';

/** Real pool events, valid per event-schemas, shaped like what the command handlers append. */

const relais = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `r${i + 1}`, name: `Relais ${i + 1}`, city: 'Lyon', postalCode: '69001', lat: 45.76, lng: 4.83 }));

const units = [{ id: 'panier-m', label: 'Panier moyen', price: '12.50' }];

const metadata = (tenantId: string, userId: string, at: string): EventMetadata => ({
  tenantId,
  actor: { kind: 'user', id: userId },
  correlationId: randomUUID(),
  causationId: null,
  occurredAt: at,
});

const toNew = (e: DomainEvent, meta: EventMetadata): NewEvent => ({
  id: randomUUID(),
  type: e.type,
  schemaVersion: eventRegistry.currentVersion(e.type),
  data: e.data,
  metadata: meta,
});

export interface PoolHistoryOptions {
  tenantId: string;
  organiserId: string;
  /** Events in the history, PoolCreated included (at least 2). */
  length: number;
  /** Ends with PoolArchived after PoolPublished. */
  archived: boolean;
  /** Start of the history's clock (ms since epoch). */
  startMs: number;
  /** Makes GROUPS or FUNDING. */
  funding?: boolean;
}

/**
 * One pool's stream: PoolCreated, draft updates (titles, descriptions, and every third one a new
 * `config.relais`, which rewrites the pick-up points), then PoolPublished and, if asked, PoolArchived.
 */
export const poolHistory = (o: PoolHistoryOptions): { poolId: string; events: NewEvent[] } => {
  const poolId = randomUUID();
  const at = (i: number) => new Date(o.startMs + i * 60_000).toISOString();
  const meta = (i: number) => metadata(o.tenantId, o.organiserId, at(i));
  const tail = o.archived ? 2 : 1;
  const updates = Math.max(0, o.length - 1 - tail);
  const events: NewEvent[] = [];
  events.push(
    toNew(
      {
        type: 'PoolCreated',
        data: {
          poolId,
          tenantId: o.tenantId,
          type: o.funding ? 'FUNDING' : 'GROUPS',
          organiserId: o.organiserId,
          organiserName: 'Bench Organiser',
          createdAt: at(0),
          title: 'Paniers de légumes bio',
          description: 'Livraison le samedi',
          country: 'FR',
          currency: 'EUR',
          marketplaceVisibility: o.funding ? 'LISTED' : 'PRIVATE',
          config: o.funding ? {} : { units, relais: relais(2), sellerPhone: '+33600000000', notes: 'owner only note' },
          sellerId: null,
          payoutAccount: null,
          organiserCommissionPercent: null,
          targetAmount: o.funding ? '2500.00' : null,
          deadline: null,
        },
      },
      meta(0),
    ),
  );
  for (let u = 1; u <= updates; u++) {
    const changes =
      u % 3 === 0 && !o.funding
        ? { config: { units, relais: relais(1 + (u % 4)), notes: `update ${u}` } }
        : u % 2 === 0
          ? { description: `Livraison le samedi, mise à jour ${u}` }
          : { title: `Paniers de légumes bio n°${u}` };
    events.push(toNew({ type: 'PoolDraftUpdated', data: { poolId, changes, updatedAt: at(u) } }, meta(u)));
  }
  events.push(toNew({ type: 'PoolPublished', data: { poolId, publishedAt: at(updates + 1) } }, meta(updates + 1)));
  if (o.archived) events.push(toNew({ type: 'PoolArchived', data: { poolId, archivedAt: at(updates + 2) } }, meta(updates + 2)));
  return { poolId, events };
};

/** Throws when an event does not pass the shared parser (the one every projection uses). */
export const assertValid = (events: NewEvent[]): void => {
  for (const e of events) parseEvent({ type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata });
};

/** A PoolDraftUpdated of typical size, for the append benchmark (the store does not look at types). */
export const sampleEvent = (tenantId: string, userId: string, poolId: string, n: number): NewEvent =>
  toNew(
    { type: 'PoolDraftUpdated', data: { poolId, changes: { title: `Paniers de légumes bio n°${n}` }, updatedAt: new Date().toISOString() } },
    metadata(tenantId, userId, new Date().toISOString()),
  );
