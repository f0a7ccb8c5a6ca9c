import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { Id, IsoDate } from './common';
import { event, type Upcaster } from './define';
import { PoolArchived, PoolPublished } from './pools';
import { EventSchemaError, allEventDefinitions, createRegistry, eventJsonSchemas, eventRegistry, parseEvent, type RawEvent } from './registry';

const POOL_ID = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const TENANT_ID = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const ORGANISER_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const CORRELATION_ID = '11111111-2222-4333-8444-555555555555';
const CAUSATION_ID = '66666666-7777-4888-9999-aaaaaaaaaaaa';

const metadata = {
  tenantId: TENANT_ID,
  actor: { kind: 'user', id: ORGANISER_ID },
  correlationId: CORRELATION_ID,
  causationId: CAUSATION_ID,
  occurredAt: '2025-03-01T09:00:00+01:00',
};

const poolCreatedData = {
  poolId: POOL_ID,
  tenantId: TENANT_ID,
  type: 'GROUPS',
  organiserId: ORGANISER_ID,
  organiserName: 'Alice Martin',
  createdAt: '2025-03-01T09:00:00+01:00',
  title: 'Paniers de légumes bio',
  description: '',
  country: 'FR',
  currency: 'EUR',
  marketplaceVisibility: 'PRIVATE',
  config: { units: [{ id: 'u1', label: 'Panier', price: '12.50' }], escrow: { accountId: `G${'A'.repeat(55)}` } },
  sellerId: null,
  payoutAccount: null,
  organiserCommissionPercent: null,
  targetAmount: null,
  deadline: null,
};

const rawPoolCreated = (overrides: Partial<RawEvent> = {}): RawEvent => ({
  type: 'PoolCreated',
  schemaVersion: 2,
  data: poolCreatedData,
  metadata,
  ...overrides,
});

/** Runs fn, asserts it throws an EventSchemaError and returns it. */
const schemaError = (fn: () => unknown): EventSchemaError => {
  try {
    fn();
  } catch (error) {
    assert.instance(error, EventSchemaError);
    return error as EventSchemaError;
  }
  return assert.unreachable('expected an EventSchemaError') as never;
};

const issuePaths = (error: EventSchemaError) => error.issues.map((i) => i.path.join('.')).sort();

// ---------------------------------------------------------------------------------------------

const parse = suite('event registry: parseEvent');

parse('parses a valid PoolCreated into type, data, schemaVersion and metadata', () => {
  const parsed = parseEvent(rawPoolCreated());
  assert.is(parsed.type, 'PoolCreated');
  assert.is(parsed.schemaVersion, 4);
  assert.equal(parsed.data, poolCreatedData);
  assert.equal(parsed.metadata, metadata);
});

parse('version 2: config is closed, an unknown config key or an escrow secret is refused', () => {
  const bad = { ...poolCreatedData, config: { ...poolCreatedData.config, reclaimXdr: 'AAAA' } };
  assert.equal(issuePaths(schemaError(() => parseEvent(rawPoolCreated({ data: bad })))), ['config']);
  const secret = { ...poolCreatedData, config: { escrow: { accountId: `G${'A'.repeat(55)}`, secret: 'SB…' } } };
  assert.equal(issuePaths(schemaError(() => parseEvent(rawPoolCreated({ data: secret })))), ['config.escrow']);
});

parse('version 1 (free-form config) upcasts: unknown keys and escrow secrets are dropped, the escrow account id kept', () => {
  const v1Config = {
    units: [{ id: 'u1', label: 'Panier', price: '12.50' }],
    notes: 'n',
    partnerKey: 'dropped',
    reclaimXdr: 'AAAAdropped',
    escrow: { accountId: `G${'B'.repeat(55)}`, secret: `S${'C'.repeat(55)}`, signerSecret: 'x' },
  };
  const parsed = parseEvent(rawPoolCreated({ schemaVersion: 1, data: { ...poolCreatedData, config: v1Config } }));
  if (parsed.type !== 'PoolCreated') return assert.unreachable('expected PoolCreated');
  assert.is(parsed.schemaVersion, 4);
  assert.equal(parsed.data.config, { units: v1Config.units, notes: 'n', escrow: { accountId: `G${'B'.repeat(55)}` } });
  const noAccount = parseEvent(rawPoolCreated({ schemaVersion: 1, data: { ...poolCreatedData, config: { escrow: { signerSecret: 'x', publicKey: 'GPUBLIC' } } } }));
  assert.equal((noAccount.data as { config: unknown }).config, {});
  const update = parseEvent({
    type: 'PoolDraftUpdated',
    schemaVersion: 1,
    data: { poolId: POOL_ID, changes: { title: 't', config: { secretSeed: 'x', links: ['https://a.test'] } }, updatedAt: '2025-03-01T09:00:00+01:00' },
    metadata,
  });
  assert.equal(update.data, { poolId: POOL_ID, changes: { title: 't', config: { links: ['https://a.test'] } }, updatedAt: '2025-03-01T09:00:00+01:00' });
  const noConfig = parseEvent({ type: 'PoolDraftUpdated', schemaVersion: 1, data: { poolId: POOL_ID, changes: { title: 't' }, updatedAt: '2025-03-01T09:00:00+01:00' }, metadata });
  assert.equal(noConfig.data, { poolId: POOL_ID, changes: { title: 't' }, updatedAt: '2025-03-01T09:00:00+01:00' });
});

parse('an unknown event type throws EventSchemaError', () => {
  const error = schemaError(() => parseEvent(rawPoolCreated({ type: 'PoolTeleported' })));
  assert.match(error.message, /unknown event type PoolTeleported/);
  assert.equal(error.issues, []);
});

parse('invalid data throws with the issues of each bad field', () => {
  const data = { ...poolCreatedData, poolId: 'not-a-uuid', country: 'france', targetAmount: '1e3' };
  const error = schemaError(() => parseEvent(rawPoolCreated({ data })));
  assert.match(error.message, /invalid PoolCreated data/);
  assert.equal(issuePaths(error), ['country', 'poolId', 'targetAmount']);
});

parse('missing data fields are reported', () => {
  const { title: _title, ...data } = poolCreatedData;
  const error = schemaError(() => parseEvent(rawPoolCreated({ data })));
  assert.equal(issuePaths(error), ['title']);
});

parse('data is strict: an unknown top-level key is refused', () => {
  const error = schemaError(() => parseEvent(rawPoolCreated({ data: { ...poolCreatedData, secret: 'x' } })));
  assert.match(error.message, /invalid PoolCreated data/);
  assert.ok(error.issues.length > 0);
});

parse('a float amount is refused: amounts are decimal strings', () => {
  const error = schemaError(() => parseEvent(rawPoolCreated({ data: { ...poolCreatedData, targetAmount: 12.5 } })));
  assert.equal(issuePaths(error), ['targetAmount']);
});

parse('metadata is validated too', () => {
  const bad = { ...metadata, correlationId: 'nope', occurredAt: '2025-03-01 09:00' };
  const error = schemaError(() => parseEvent(rawPoolCreated({ metadata: bad })));
  assert.match(error.message, /invalid PoolCreated metadata/);
  assert.equal(issuePaths(error), ['correlationId', 'occurredAt']);
});

parse('metadata actor kind is an enumeration', () => {
  const error = schemaError(() => parseEvent(rawPoolCreated({ metadata: { ...metadata, actor: { kind: 'robot', id: 'x' } } })));
  assert.equal(issuePaths(error), ['actor.kind']);
});

parse('metadata is strict and required', () => {
  schemaError(() => parseEvent(rawPoolCreated({ metadata: { ...metadata, extra: true } })));
  schemaError(() => parseEvent(rawPoolCreated({ metadata: undefined })));
});

parse('metadata accepts a null tenant and causation and an optional ip', () => {
  const meta = { ...metadata, tenantId: null, causationId: null, ip: '203.0.113.7' };
  assert.equal(parseEvent(rawPoolCreated({ metadata: meta })).metadata, meta);
});

parse('a schema version above the current one (from the future) throws', () => {
  const error = schemaError(() => parseEvent(rawPoolCreated({ schemaVersion: 5 })));
  assert.match(error.message, /unsupported schema version 5/);
});

parse('version 3 adds config.release: version 2 data reads unchanged, and release terms are validated', () => {
  const v2 = parseEvent(rawPoolCreated({ schemaVersion: 2 }));
  assert.is(v2.schemaVersion, 4);
  assert.equal(v2.data, poolCreatedData);
  const withRelease = { ...poolCreatedData, config: { ...poolCreatedData.config, release: { after: 'RECEIPT', inspectionDays: 5 } } };
  assert.equal((parseEvent(rawPoolCreated({ data: withRelease })).data as { config: unknown }).config, withRelease.config);
  const bad = { ...poolCreatedData, config: { ...poolCreatedData.config, release: { after: 'NEVER' } } };
  assert.equal(issuePaths(schemaError(() => parseEvent(rawPoolCreated({ data: bad })))), ['config.release.after']);
});

parse('TenantSettingsChanged version 1 reads as version 2 (the escrow settings are new optional keys)', () => {
  const data = { tenantId: POOL_ID, settings: { reservationTtlSeconds: 600 }, changedAt: '2025-03-01T09:00:00+01:00' };
  const parsed = parseEvent({ type: 'TenantSettingsChanged', schemaVersion: 1, data, metadata });
  assert.is(parsed.schemaVersion, 2);
  assert.equal(parsed.data, data);
});

parse('schema versions below 1 or not integers throw', () => {
  for (const v of [0, -1, 1.5, Number.NaN]) schemaError(() => parseEvent(rawPoolCreated({ schemaVersion: v })));
});

parse('the default registry knows every event definition at its current version', () => {
  for (const d of allEventDefinitions) {
    assert.ok(eventRegistry.has(d.type), d.type);
    assert.is(eventRegistry.currentVersion(d.type), d.version);
  }
  assert.not.ok(eventRegistry.has('PoolTeleported'));
  assert.throws(() => eventRegistry.currentVersion('PoolTeleported'), (e: unknown) => e instanceof EventSchemaError);
});

parse.run();

// ---------------------------------------------------------------------------------------------

const upcasting = suite('event registry: upcasting');

/** A synthetic v2 of PoolPublished: it also records who published, split into a separate field. */
const PoolPublishedV2 = event(
  'PoolPublished',
  2,
  z.object({ poolId: Id, publishedAt: IsoDate, publishedBy: z.string().min(1) }).strict(),
);
/** And a v3 that renames publishedAt to at. */
const PoolPublishedV3 = event('PoolPublished', 3, z.object({ poolId: Id, at: IsoDate, publishedBy: z.string().min(1) }).strict());

const v1ToV2: Upcaster = {
  type: 'PoolPublished',
  fromVersion: 1,
  up: (data) => ({ ...(data as object), publishedBy: 'unknown' }),
};
const v2ToV3: Upcaster = {
  type: 'PoolPublished',
  fromVersion: 2,
  up: (data) => {
    const { publishedAt, ...rest } = data as { publishedAt: string };
    return { ...rest, at: publishedAt };
  },
};

/** What the synthetic registries parse to: any type, any data. */
type AnyEvent = { type: string; data: unknown };
const registryOf = (defs: Parameters<typeof createRegistry>[0], ups: Upcaster[]) => createRegistry<AnyEvent>(defs, ups);

const storedV1: RawEvent = {
  type: 'PoolPublished',
  schemaVersion: 1,
  data: { poolId: POOL_ID, publishedAt: '2025-03-02T10:30:00+01:00' },
  metadata,
};

upcasting('a stored v1 event parses to v2 data with schemaVersion 2', () => {
  const registry = registryOf([PoolPublishedV2, PoolArchived], [v1ToV2]);
  const parsed = registry.parse(storedV1);
  assert.equal(parsed, {
    type: 'PoolPublished',
    data: { poolId: POOL_ID, publishedAt: '2025-03-02T10:30:00+01:00', publishedBy: 'unknown' },
    schemaVersion: 2,
    metadata,
  });
  assert.is(registry.currentVersion('PoolPublished'), 2);
});

upcasting('a stored v2 event is not upcast again', () => {
  const registry = registryOf([PoolPublishedV2], [v1ToV2]);
  const data = { poolId: POOL_ID, publishedAt: '2025-03-02T10:30:00+01:00', publishedBy: ORGANISER_ID };
  const parsed = registry.parse({ ...storedV1, schemaVersion: 2, data });
  assert.equal(parsed.data, data);
  assert.is(parsed.schemaVersion, 2);
});

upcasting('v1 data is never accepted as v2 as is: an upcaster that adds nothing leaves data the v2 schema refuses', () => {
  const registry = registryOf([PoolPublishedV2], [{ ...v1ToV2, up: (d) => d }]);
  const error = schemaError(() => registry.parse(storedV1));
  assert.equal(issuePaths(error), ['publishedBy']);
});

upcasting('upcasters chain: v1 → v2 → v3', () => {
  const registry = registryOf([PoolPublishedV3], [v2ToV3, v1ToV2]);
  const parsed = registry.parse(storedV1);
  assert.equal(parsed.data, { poolId: POOL_ID, at: '2025-03-02T10:30:00+01:00', publishedBy: 'unknown' });
  assert.is(parsed.schemaVersion, 3);
});

upcasting('a missing upcaster throws', () => {
  const none = registryOf([PoolPublishedV2], []);
  assert.match(schemaError(() => none.parse(storedV1)).message, /no upcaster for PoolPublished from version 1/);
  const gap = registryOf([PoolPublishedV3], [v1ToV2]);
  assert.match(schemaError(() => gap.parse(storedV1)).message, /no upcaster for PoolPublished from version 2/);
});

upcasting('an upcaster of another type is not used', () => {
  const registry = registryOf([PoolPublishedV2], [{ ...v1ToV2, type: 'PoolArchived' }]);
  assert.match(schemaError(() => registry.parse(storedV1)).message, /no upcaster for PoolPublished/);
});

upcasting('a version from the future throws', () => {
  const registry = registryOf([PoolPublishedV2], [v1ToV2]);
  const error = schemaError(() => registry.parse({ ...storedV1, schemaVersion: 3 }));
  assert.match(error.message, /unsupported schema version 3/);
});

upcasting('the upcast data is validated against the current schema', () => {
  const registry = registryOf([PoolPublishedV2], [{ ...v1ToV2, up: (d) => ({ ...(d as object), publishedBy: '' }) }]);
  const error = schemaError(() => registry.parse(storedV1));
  assert.match(error.message, /invalid PoolPublished data/);
  assert.equal(issuePaths(error), ['publishedBy']);
});

upcasting('the stored event is not mutated by upcasting', () => {
  const registry = registryOf([PoolPublishedV3], [v1ToV2, v2ToV3]);
  const raw = structuredClone(storedV1);
  registry.parse(raw);
  assert.equal(raw, storedV1);
});

upcasting('the same type defined twice is refused', () => {
  assert.throws(() => registryOf([PoolPublished, PoolPublishedV2], []), /PoolPublished defined twice/);
});

upcasting('definitions() lists each definition once', () => {
  const registry = registryOf([PoolPublishedV2, PoolArchived], []);
  assert.equal(
    registry.definitions().map((d) => `${d.type}@${d.version}`),
    ['PoolPublished@2', 'PoolArchived@1'],
  );
});

upcasting.run();

// ---------------------------------------------------------------------------------------------

upcasting('PoolCreated version 3 (no livemode) reads as version 4 unchanged; version 4 keeps livemode and refuses a non-boolean', () => {
  const v3 = parseEvent(rawPoolCreated({ schemaVersion: 3 }));
  assert.is(v3.schemaVersion, 4);
  assert.is((v3.data as { livemode?: boolean }).livemode, undefined);
  const v4 = parseEvent(rawPoolCreated({ schemaVersion: 4, data: { ...poolCreatedData, livemode: true } }));
  assert.is((v4.data as { livemode?: boolean }).livemode, true);
  schemaError(() => parseEvent(rawPoolCreated({ schemaVersion: 4, data: { ...poolCreatedData, livemode: 'yes' } })));
});

const jsonSchemas = suite('event registry: JSON schemas');

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; const?: unknown };

jsonSchemas('there is a JSON schema for every event type and no other', () => {
  const schemas = eventJsonSchemas();
  assert.equal(Object.keys(schemas).sort(), allEventDefinitions.map((d) => d.type).sort());
});

jsonSchemas('each schema describes the envelope: type and schemaVersion constants, data and metadata', () => {
  const schemas = eventJsonSchemas() as Record<string, JsonSchema>;
  for (const d of allEventDefinitions) {
    const s = schemas[d.type];
    assert.ok(s, d.type);
    assert.is(s.type, 'object', d.type);
    assert.is(s.properties?.type?.const, d.type, d.type);
    assert.is(s.properties?.schemaVersion?.const, d.version, d.type);
    assert.equal([...(s.required ?? [])].sort(), ['data', 'metadata', 'schemaVersion', 'type'], d.type);
    assert.is(s.properties?.data?.type, 'object', d.type);
    assert.ok(s.properties?.metadata?.required?.includes('correlationId'), d.type);
  }
});

jsonSchemas('the data schema carries the event fields', () => {
  const schemas = eventJsonSchemas() as Record<string, JsonSchema>;
  const data = schemas.PoolCreated?.properties?.data;
  assert.ok(data?.required?.includes('poolId'));
  assert.ok(data?.required?.includes('organiserId'));
  assert.ok(data?.properties?.targetAmount);
  const archived = schemas.PoolArchived?.properties?.data;
  assert.equal([...(archived?.required ?? [])].sort(), ['archivedAt', 'poolId']);
});

jsonSchemas('the schemas are plain JSON', () => {
  const schemas = eventJsonSchemas();
  assert.equal(JSON.parse(JSON.stringify(schemas)), schemas);
});

jsonSchemas.run();
