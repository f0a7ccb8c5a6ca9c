import { z } from 'zod';
import { EventMetadata, type EventDefinition, type EventOf, type Upcaster } from './define';
import { poolEvents, poolUpcasters } from './pools';
import { AccountRegistered, PasswordResetCompleted, TenantCreated } from './identity/events';
import { BusinessIdentityCaptured, OrganiserGrantPrepared, OrganiserGrantSettled, RoleGranted } from './personas/events';
import { LedgerAccountLinked } from './ledger/events';
import { MandateAccepted, MandateRevoked } from './mandates/events';
import { catalogueEvents } from './catalogue';
import { escrowEvents, listingEvents, reservationEvents, reservationUpcasters } from './reservations/events';
import { TenantAuditorGranted, TenantAuditorRevoked, TenantSettingsChanged, TenantVerificationWithdrawn, TenantVerified } from './identity/events';
import { closingUpcasters, escrowFeatureEvents, settlementUpcasters } from './escrow/events';
import { invoicingEvents } from './invoicing/events';
import { feeEvents } from './fees/events';
import { dealEvents } from './deals/events';
import { paymentRequestEvents } from './requests/events';
import { accountPartnerEvents } from './accounts/events';
import { transferEvents } from './transfers/events';
import { poolRelaisEvents, relaisHostEvents } from './relais/events';

/** An event as stored: type, the schema version it was written with, data and metadata. */
export interface RawEvent {
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
}

export class EventSchemaError extends Error {
  constructor(
    message: string,
    readonly issues: z.core.$ZodIssue[] = [],
  ) {
    super(message);
    this.name = 'EventSchemaError';
  }
}

/**
 * The identity, personas, ledger and mandates events in the order they were first published (one file then):
 * the order of docs/event-schemas.json, which consumers diff.
 */
const identityEvents = [
  TenantCreated,
  AccountRegistered,
  BusinessIdentityCaptured,
  LedgerAccountLinked,
  OrganiserGrantPrepared,
  OrganiserGrantSettled,
  RoleGranted,
  MandateAccepted,
  MandateRevoked,
  PasswordResetCompleted,
] as const;

type AnyDefinition = EventDefinition<string, z.ZodType>;

/** New areas are appended, so docs/event-schemas.json only grows at its end. */
export const allEventDefinitions = [
  ...poolEvents,
  ...identityEvents,
  ...catalogueEvents,
  ...reservationEvents,
  ...escrowEvents,
  ...listingEvents,
  TenantSettingsChanged,
  ...escrowFeatureEvents,
  TenantAuditorGranted,
  TenantAuditorRevoked,
  TenantVerified,
  TenantVerificationWithdrawn,
  ...feeEvents,
  ...invoicingEvents,
  ...dealEvents,
  ...paymentRequestEvents,
  ...accountPartnerEvents,
  ...transferEvents,
  ...relaisHostEvents,
  ...poolRelaisEvents,
] as const;
/** The union of every current event, discriminated on `type`. */
export type DomainEvent = EventOf<(typeof allEventDefinitions)[number]>;
export type DomainEventType = DomainEvent['type'];
export type EventData<T extends DomainEventType> = Extract<DomainEvent, { type: T }>['data'];
export type ParsedEvent<E = DomainEvent> = E & { schemaVersion: number; metadata: EventMetadata };

/** Upcasters for every schema version ever published. */
export const upcasters: Upcaster[] = [
  ...poolUpcasters,
  { type: 'TenantSettingsChanged', fromVersion: 1, up: (data) => data },
  { type: 'LedgerAccountLinked', fromVersion: 1, up: (data) => data },
  { type: 'BusinessIdentityCaptured', fromVersion: 1, up: (data) => data }, ...closingUpcasters, ...settlementUpcasters, ...reservationUpcasters];

export interface EventRegistry<E> {
  /** Upcasts stored data to the current version and validates it: the one parser every reader shares. */
  parse(raw: RawEvent): ParsedEvent<E>;
  currentVersion(type: string): number;
  has(type: string): boolean;
  definitions(): AnyDefinition[];
}

export const createRegistry = <E>(defs: readonly AnyDefinition[], ups: readonly Upcaster[]): EventRegistry<E> => {
  const byType = new Map<string, AnyDefinition>();
  for (const d of defs) {
    if (byType.has(d.type)) throw new Error(`event type ${d.type} defined twice`);
    byType.set(d.type, d);
  }
  const upByKey = new Map(ups.map((u) => [`${u.type}@${u.fromVersion}`, u]));
  return {
    parse(raw) {
      const def = byType.get(raw.type);
      if (!def) throw new EventSchemaError(`unknown event type ${raw.type}`);
      if (!Number.isInteger(raw.schemaVersion) || raw.schemaVersion < 1 || raw.schemaVersion > def.version) {
        throw new EventSchemaError(`${raw.type} has unsupported schema version ${raw.schemaVersion}`);
      }
      let data = raw.data;
      for (let v = raw.schemaVersion; v < def.version; v++) {
        const up = upByKey.get(`${raw.type}@${v}`);
        if (!up) throw new EventSchemaError(`no upcaster for ${raw.type} from version ${v}`);
        data = up.up(data);
      }
      const parsedData = def.data.safeParse(data);
      if (!parsedData.success) throw new EventSchemaError(`invalid ${raw.type} data`, parsedData.error.issues);
      const meta = EventMetadata.safeParse(raw.metadata);
      if (!meta.success) throw new EventSchemaError(`invalid ${raw.type} metadata`, meta.error.issues);
      return { type: raw.type, data: parsedData.data, schemaVersion: def.version, metadata: meta.data } as unknown as ParsedEvent<E>;
    },
    currentVersion(type) {
      const def = byType.get(type);
      if (!def) throw new EventSchemaError(`unknown event type ${type}`);
      return def.version;
    },
    has: (type) => byType.has(type),
    definitions: () => [...byType.values()],
  };
};

export const eventRegistry: EventRegistry<DomainEvent> = createRegistry<DomainEvent>(allEventDefinitions, upcasters);
export const parseEvent = (raw: RawEvent): ParsedEvent => eventRegistry.parse(raw);

/** JSON Schema (draft 2020-12) of every current event envelope, for consumers of the feed. */
export const eventJsonSchemas = (): Record<string, unknown> =>
  Object.fromEntries(
    eventRegistry.definitions().map((d) => [
      d.type,
      z.toJSONSchema(
        z.object({ type: z.literal(d.type), schemaVersion: z.literal(d.version), data: d.data, metadata: EventMetadata }),
        { target: 'draft-2020-12', unrepresentable: 'any' },
      ),
    ]),
  );
