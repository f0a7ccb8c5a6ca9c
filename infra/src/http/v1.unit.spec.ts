import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ValidationError } from '@cagnotte/domain';
import { V1ListQuery, cursorPage, expandOf, fromPrefixedId, scopeAllows, toPrefixedId, v1ScopeOf } from './v1';

const test = suite('/v1 conventions');

test('prefixed ids: a uuid round-trips; another prefix, upper case or a short id is none', () => {
  const uuid = '3f2a9c1e-4b7d-4e0f-8a6b-5c4d3e2f1a0b';
  const id = toPrefixedId('deal', uuid);
  assert.is(id, 'deal_3f2a9c1e4b7d4e0f8a6b5c4d3e2f1a0b');
  assert.is(fromPrefixedId('deal', id), uuid);
  assert.is(fromPrefixedId('acct', id), null);
  assert.is(fromPrefixedId('deal', id.toUpperCase()), null);
  assert.is(fromPrefixedId('deal', id.slice(0, -1)), null);
  assert.is(fromPrefixedId('deal', `${id}0`), null);
});

test('scopes: * all; *:read reads only; <resource>:write implies its read and nothing else', () => {
  assert.ok(scopeAllows(['*'], 'deals', 'write'));
  assert.ok(scopeAllows(['*:read'], 'deals', 'read'));
  assert.not.ok(scopeAllows(['*:read'], 'deals', 'write'));
  assert.ok(scopeAllows(['deals:write'], 'deals', 'read'));
  assert.not.ok(scopeAllows(['deals:write'], 'transfers', 'read'));
  assert.not.ok(scopeAllows(['deals:read'], 'deals', 'write'));
  assert.not.ok(scopeAllows([], 'events', 'read'));
});

test('a route’s scope: declared, else the path’s resource and the method; none outside /v1; an unknown resource fails at mount', () => {
  assert.equal(v1ScopeOf({ path: '/v1/group-buys/{id}/close', method: 'post' }), { resource: 'group_buys', access: 'write' });
  assert.equal(v1ScopeOf({ path: '/v1/events/stream', method: 'get' }), { resource: 'events', access: 'read' });
  assert.equal(v1ScopeOf({ path: '/v1/x', method: 'get', v1: { resource: 'deals', access: 'write' } }), { resource: 'deals', access: 'write' });
  assert.is(v1ScopeOf({ path: '/api/pools', method: 'post' }), null);
  assert.throws(() => v1ScopeOf({ path: '/v1/unknown', method: 'get' }));
});

test('list query: limit 1–100 in decimal digits, one cursor at most, expand[] as one value or many', () => {
  assert.equal(V1ListQuery.parse({}), { limit: 10 });
  assert.is(V1ListQuery.parse({ limit: '100' }).limit, 100);
  assert.not.ok(V1ListQuery.safeParse({ limit: '101' }).success);
  assert.not.ok(V1ListQuery.safeParse({ limit: '1e2' }).success);
  assert.not.ok(V1ListQuery.safeParse({ startingAfter: 'a', endingBefore: 'b' }).success);
  const q = V1ListQuery.parse({ 'expand[]': 'buyer' });
  assert.equal([...expandOf(q, ['buyer', 'seller'])], ['buyer']);
  assert.equal([...expandOf(V1ListQuery.parse({ 'expand[]': ['buyer', 'seller'] }), ['buyer', 'seller'])], ['buyer', 'seller']);
  assert.throws(() => expandOf(q, ['seller']), (e: unknown) => e instanceof ValidationError && 'expand' in e.errors);
});

test('cursor page: one row past the limit means more; endingBefore pages come back newest first', () => {
  assert.equal(cursorPage([5, 4, 3], 2), { items: [5, 4], hasMore: true });
  assert.equal(cursorPage([5, 4], 2), { items: [5, 4], hasMore: false });
  assert.equal(cursorPage([6, 7, 8], 2, 5n), { items: [7, 6], hasMore: true });
});

test.run();
