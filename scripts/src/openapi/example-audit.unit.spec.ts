/** The examples audit finds each problem it is meant to, on small documents that have it, and nothing on one that has none. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { auditExamples, describeFinding, placeholdersIn, viewerSample, type AuditedDocument } from './example-audit';

const test = suite('OpenAPI examples audit');

const Line = { type: 'object', properties: { price: { type: 'string' }, quantity: { type: 'integer' } }, required: ['price', 'quantity'] };
const docWith = (operation: Record<string, unknown>): AuditedDocument => ({
  paths: { '/api/pools/{id}/reservations': { post: { operationId: 'createPoolReservation', ...operation } } },
  components: { schemas: { Line } },
});
const json = (schema: unknown, example?: unknown) => ({ content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } } });
const tenantHeader = { name: 'x-service-tenant', in: 'header' };
const good = { parameters: [tenantHeader], requestBody: json({ $ref: '#/components/schemas/Line' }, { price: '18.50', quantity: 2 }), responses: { 201: json(Line, { price: '18.50', quantity: 2 }) } };
const audit = (doc: AuditedDocument, tenantScoped = ['createPoolReservation']) => auditExamples(doc, { tenantScoped: new Set(tenantScoped) }).map(describeFinding);

test('a document with realistic, valid examples and the tenant header: nothing found', () => {
  assert.equal(audit(docWith(good)), []);
});

test('a missing example is named, with what the viewer would show instead: "string" for an amount, 0 for a quantity', () => {
  const found = audit(docWith({ ...good, responses: { 201: json({ type: 'object', properties: { data: { $ref: '#/components/schemas/Line' } } }) } }));
  assert.equal(found, ['createPoolReservation (POST /api/pools/{id}/reservations) 201 answer: no example; the viewer would show data.price is "string", not a decimal amount, data.quantity is 0']);
  assert.equal(viewerSample({ type: 'integer', minimum: 1 }, {}), 1);
  assert.equal(viewerSample({ type: ['string', 'null'], format: 'uuid' }, {}), '<uuid>');
});

test('explicit placeholders: an amount that is not a decimal string, a quantity of 0, "string" or "example" anywhere', () => {
  const found = audit(docWith({ ...good, requestBody: json({ $ref: '#/components/schemas/Line' }, { price: 'string', quantity: 0 }) }));
  assert.ok(found.some((f) => f.includes('request body: example: price is "string", not a decimal amount')), found.join('\n'));
  assert.ok(found.some((f) => f.includes('request body: example: quantity is 0')), found.join('\n'));
  assert.equal(
    placeholdersIn({ items: [{ unitPrice: '12.5', note: 'example', totalAmount: '1,20' }] }).map((p) => p.text),
    ['items[0].note is "example"', 'items[0].totalAmount is "1,20", not a decimal amount'],
  );
});

test('an example its own schema refuses (ajv, 2020-12, $refs and formats resolved)', () => {
  const found = audit(docWith({ ...good, requestBody: json({ $ref: '#/components/schemas/Line' }, { price: '18.50' }) }));
  assert.equal(found, ["createPoolReservation (POST /api/pools/{id}/reservations) request body: example refused by its schema: / must have required property 'quantity'"]);
  const uuid = audit(docWith({ ...good, responses: { 200: json({ type: 'object', properties: { id: { type: 'string', format: 'uuid' } } }, { id: 'res-1' }) } }));
  assert.equal(uuid, ['createPoolReservation (POST /api/pools/{id}/reservations) 200 answer: example refused by its schema: /id must match format "uuid"']);
});

test('a tenant-scoped operation without X-Service-Tenant, and one the document lacks', () => {
  assert.equal(audit(docWith({ ...good, parameters: [] })), ['createPoolReservation (POST /api/pools/{id}/reservations) parameters: tenant-scoped, but X-Service-Tenant is not listed']);
  assert.equal(audit(docWith({ ...good, parameters: [{ name: 'X-Service-Tenant', in: 'header' }] })), []);
  assert.equal(audit(docWith(good), ['createPoolReservation', 'getPool']), ['getPool paths: tenant-scoped operation missing from the document']);
});

test.run();
