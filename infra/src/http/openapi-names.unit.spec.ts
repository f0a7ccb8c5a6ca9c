import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { componentStem, deriveOperationId, singular } from './openapi-names';

const test = suite('OpenAPI names: operationIds from method and path');

test('items, collections and actions read as verbs and resource words', () => {
  const cases: Array<[string, string, string]> = [
    ['get', '/api/pools', 'listPools'],
    ['post', '/api/pools', 'createPool'],
    ['get', '/api/pools/{id}', 'getPool'],
    ['patch', '/api/pools/{id}', 'updatePool'],
    ['delete', '/api/mandates/{id}', 'deleteMandate'],
    ['post', '/api/pools/{id}/archive', 'archivePool'],
    ['post', '/api/pools/{id}/reservations', 'createPoolReservation'],
    ['post', '/api/pools/{id}/reservations/{reservationId}/sign', 'signPoolReservation'],
    ['get', '/api/pools/{id}/reservations/{reservationId}/history', 'getPoolReservationHistory'],
    ['get', '/api/me/reservations', 'listMyReservations'],
    ['get', '/api/tenant/group-buys', 'listTenantGroupBuys'],
    ['get', '/v1/events/types', 'listEventTypes'],
    ['get', '/v1/webhooks/signing-key', 'getWebhookSigningKey'],
    ['get', '/v1/group-buys/{id}', 'getGroupBuy'],
    ['post', '/v1/deals/{id}/fund', 'fundDeal'],
    ['delete', '/api/pools/{id}/archive', 'deletePoolArchive'],
    ['post', '/sandbox/webhook-inbox/{token}', 'postSandboxWebhookInbox'],
  ];
  assert.equal(
    cases.map(([m, p]) => deriveOperationId(m, p)),
    cases.map(([, , id]) => id),
  );
});

test('singular and component stems', () => {
  assert.equal(['reservations', 'group-buys', 'addresses', 'policies', 'status', 'escrow'].map(singular), ['reservation', 'group-buy', 'address', 'policy', 'status', 'escrow']);
  assert.is(componentStem('createPool'), 'CreatePool');
});

test.run();
