import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { incompatibilities, type PublishedCatalogue } from './schema-compat';

const test = suite('public event schemas: compatibility');

const obj = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({ type: 'object', properties, required });
const catalogue = (types: Record<string, unknown>): PublishedCatalogue => ({
  apiVersion: '2026-11-01',
  types: Object.fromEntries(Object.entries(types).map(([t, data]) => [t, { description: t, schema: obj({ type: { type: 'string', const: t }, data: data as object }) }])),
});

const base = () =>
  catalogue({
    'pool.closed': obj({
      poolId: { type: 'string' },
      status: { type: 'string', enum: ['LOCKED', 'FAILED'] },
      paidUnits: { type: 'integer' },
      reason: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      finalPrices: { type: 'array', items: obj({ unitId: { type: 'string' }, price: { type: 'string' } }) },
    }),
  });

const changed = (edit: (data: { properties: Record<string, Record<string, unknown>>; required: string[] }) => void, extraTypes: Record<string, unknown> = {}) => {
  const next = base();
  const data = (next.types['pool.closed']!.schema as { properties: { data: { properties: Record<string, Record<string, unknown>>; required: string[] } } }).properties.data;
  edit(data);
  for (const [t, d] of Object.entries(extraTypes)) next.types[t] = catalogue({ [t]: d }).types[t]!;
  return next;
};

test('given the same catalogue, when compared, then nothing is incompatible', () => {
  assert.equal(incompatibilities(base(), base()), []);
});

test('given a new type and a new optional property, when compared, then both are allowed', () => {
  const next = changed((d) => void (d.properties.note = { type: 'string' }), { 'pool.reopened': obj({ poolId: { type: 'string' } }) });
  assert.equal(incompatibilities(base(), next), []);
});

test('given a new enum value, when compared, then it is allowed', () => {
  assert.equal(incompatibilities(base(), changed((d) => (d.properties.status!.enum = ['LOCKED', 'FAILED', 'PARTIAL']))), []);
});

test('given a published type removed, when compared, then it is incompatible', () => {
  assert.equal(incompatibilities(base(), catalogue({})), ['pool.closed: type removed']);
});

test('given a property removed, when compared, then it is incompatible', () => {
  const next = changed((d) => {
    delete d.properties.paidUnits;
    d.required = d.required.filter((r) => r !== 'paidUnits');
  });
  assert.equal(incompatibilities(base(), next), ['pool.closed: data.paidUnits: property removed']);
});

test('given a property whose type changed, when compared, then it is incompatible (nested in arrays and unions too)', () => {
  assert.equal(incompatibilities(base(), changed((d) => (d.properties.paidUnits = { type: 'string' }))), ['pool.closed: data.paidUnits: type changed from integer to string']);
  const nested = changed((d) => ((d.properties.finalPrices!.items as { properties: Record<string, unknown> }).properties.price = { type: 'number' }));
  assert.equal(incompatibilities(base(), nested), ['pool.closed: data.finalPrices[].price: type changed from string to number']);
  const union = changed((d) => (d.properties.reason = { type: 'string' }));
  assert.equal(incompatibilities(base(), union), ['pool.closed: data.reason: type changed from anyOf(string|null) to string']);
});

test('given a property newly required, when compared, then it is incompatible', () => {
  const next = changed((d) => {
    d.properties.note = { type: 'string' };
    d.required = [...d.required, 'note'];
  });
  assert.equal(incompatibilities(base(), next), ['pool.closed: data.note: newly required']);
});

test('given an enum value removed or a constant changed, when compared, then it is incompatible', () => {
  assert.equal(incompatibilities(base(), changed((d) => (d.properties.status!.enum = ['LOCKED']))), ['pool.closed: data.status: enum value removed: FAILED']);
  const next = base();
  ((next.types['pool.closed']!.schema as { properties: { type: { const: string } } }).properties.type.const = 'pool.ended');
  assert.equal(incompatibilities(base(), next), ['pool.closed: type: constant changed from "pool.closed" to "pool.ended"']);
});

test.run();
