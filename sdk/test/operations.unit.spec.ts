import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import createFetchClient from 'openapi-fetch';
import { operations } from '../src/operations';
import { json, localServer } from './local-server';

/** The operation factory on paths the document may have later: several path parameters, then the body, then options. */
const test = suite('sdk: operations');

test('given a path with two parameters, then the first two arguments fill them (encoded), the next is the body, the last the options', async () => {
  const { url, seen } = await localServer((_req, _n, res) => json(res, 201, { success: true, data: { ok: true } }));
  const op = operations(createFetchClient<any>({ baseUrl: url }));
  const pay = op.post('/v1/group-buys/{id}/orders/{orderId}/payment' as never) as unknown as (...args: unknown[]) => Promise<unknown>;
  assert.equal(await pay('gb_1', 'ord 2', { amount: '12.50' }, { idempotencyKey: 'pay-ord-2-once' }), { ok: true });
  assert.is(seen[0]!.url, '/v1/group-buys/gb_1/orders/ord%202/payment');
  assert.is(seen[0]!.body, JSON.stringify({ amount: '12.50' }));
  assert.is(seen[0]!.headers['idempotency-key'], 'pay-ord-2-once');
});

test('given a 204, then the call answers undefined', async () => {
  const { url } = await localServer((_req, _n, res) => void res.writeHead(204).end());
  const op = operations(createFetchClient<any>({ baseUrl: url }));
  const del = op.delete('/v1/things/{id}' as never) as unknown as (...args: unknown[]) => Promise<unknown>;
  assert.is(await del('t_1'), undefined);
});

test.run();
