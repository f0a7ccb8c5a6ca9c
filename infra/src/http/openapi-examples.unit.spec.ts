import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { LedgerAmount } from './envelope';
import { annotateMoneyFields, exampleOf, stringMatching, type JsonSchema } from './openapi-examples';

const test = suite('OpenAPI examples made from schemas');
const json = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

test('formats, amounts and bounded numbers: realistic values the zod schema accepts', () => {
  const Body = z
    .object({
      email: z.email(),
      id: z.uuid(),
      at: z.iso.datetime(),
      amount: LedgerAmount,
      units: z.number().int().min(1).max(5),
      percent: z.number().min(0).max(100),
      count: z.number().int().min(20),
      country: z.string().regex(/^[A-Z]{2}$/),
      kind: z.enum(['GROUPS', 'FUNDING']),
      tags: z.array(z.string().min(3)).min(2),
      note: z.string().optional(),
    })
    .strict();
  const example = exampleOf(json(Body)) as Record<string, unknown>;
  assert.ok(Body.safeParse(example).success, JSON.stringify(Body.safeParse(example).error?.issues));
  assert.is(example.email, 'jane.doe@example.com');
  assert.is(example.amount, '12.50');
  assert.is(example.at, '2026-03-14T09:30:00.000Z');
  assert.equal([example.units, example.percent, example.count], [5, 10, 20]);
  assert.is(example.country, 'FR');
  assert.is(example.kind, 'GROUPS');
  assert.is((example.tags as string[]).length, 2);
  assert.ok(!('note' in (exampleOf(json(Body), {}, { requiredOnly: true }) as object)));
});

test('references resolve; a minimum of 1 is never answered 0', () => {
  const components = { Qty: { type: 'integer', minimum: 1, maximum: 3 } };
  assert.equal(exampleOf({ type: 'object', properties: { q: { $ref: '#/components/schemas/Qty' } }, required: ['q'] }, components), { q: 3 });
  assert.is(exampleOf({ type: 'integer', minimum: 1 }), 10);
  assert.is(exampleOf({ type: 'integer', exclusiveMinimum: 0, maximum: 1 }), 1);
});

test('strings for simple patterns', () => {
  for (const pattern of ['^[0-9a-f]{64}$', '^ibx_[A-Za-z0-9_-]{35}$', '^\\d{14}$', '^[A-Za-z0-9 -]{2,10}$', '^(ab|cd)+x?$']) {
    assert.match(stringMatching(pattern), new RegExp(pattern), pattern);
  }
});

test('money fields get "12.50" as their example, other strings none', () => {
  const doc = annotateMoneyFields({ a: { type: 'object', properties: { price: { type: 'string' }, total: { type: 'string', pattern: '^(0|[1-9]\\d{0,14})(\\.\\d{1,7})?$' }, name: { type: 'string' } } } });
  const props = doc.a.properties as Record<string, JsonSchema>;
  assert.equal([props.price!.examples, props.total!.examples, props.name!.examples], [['12.50'], ['12.50'], undefined]);
});

test.run();
