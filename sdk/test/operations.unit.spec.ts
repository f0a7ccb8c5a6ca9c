import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import createFetchClient from 'openapi-fetch';
import { CagnotteError, createClient } from '../src';
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

test('given a document (the request invoice, a PDF), then the call answers its bytes; a refusal is still a CagnotteError', async () => {
  const pdf = Buffer.from('%PDF-1.7\n\x00\xff binary', 'latin1');
  const { url, seen } = await localServer((req, _n, res) => {
    if (req.url!.includes('req_missing')) return json(res, 404, { success: false, error: 'Not found', code: 'request_not_found' });
    res.writeHead(200, { 'content-type': 'application/pdf' });
    res.end(pdf);
  });
  const client = createClient({ baseUrl: url });
  const bytes = await client.requests.invoice('req_1');
  assert.instance(bytes, Uint8Array);
  assert.equal(Buffer.from(bytes), pdf);
  assert.is(seen[0]!.url, '/v1/requests/req_1/invoice');
  await client.requests.invoice('req_missing').then(
    () => assert.unreachable(),
    (error: CagnotteError) => assert.equal([error instanceof CagnotteError, error.code], [true, 'request_not_found']),
  );
});

test.run();
