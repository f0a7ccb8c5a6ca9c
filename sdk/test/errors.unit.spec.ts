import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CagnotteError, createClient } from '../src';
import { json, localServer } from './local-server';

/** The envelope of a refusal becomes a CagnotteError: status, code, param, requestId, per-field errors, message. */
const test = suite('sdk: CagnotteError');

const caught = async (p: Promise<unknown>): Promise<CagnotteError> => {
  try {
    await p;
  } catch (error) {
    assert.instance(error, CagnotteError);
    assert.instance(error, Error);
    return error as CagnotteError;
  }
  throw new Error('it did not throw');
};

test('given a validation failure with param and requestId, then every field of the envelope is on the error', async () => {
  const { url } = await localServer((_req, _n, res) =>
    json(res, 400, { success: false, error: 'Invalid request', code: 'validation_failed', param: 'url', errors: { url: ['not a URL'], 'enabledEvents.1': ['unknown type'] }, requestId: 'req_123' }),
  );
  const error = await caught(createClient({ baseUrl: url }).webhooks.create({ url: 'nope', enabledEvents: ['*', 'x.y'] }));
  assert.equal(
    { name: error.name, status: error.status, code: error.code, param: error.param, requestId: error.requestId, errors: error.errors, message: error.message },
    { name: 'CagnotteError', status: 400, code: 'validation_failed', param: 'url', requestId: 'req_123', errors: { url: ['not a URL'], 'enabledEvents.1': ['unknown type'] }, message: 'Invalid request' },
  );
});

test('given an envelope without param or requestId, then param is the first field at fault and requestId the X-Request-Id header', async () => {
  const { url } = await localServer((_req, _n, res) => json(res, 400, { success: false, error: 'Invalid', code: 'validation_failed', errors: { enabledEvents: ['required'] } }, { 'x-request-id': 'hdr-9' }));
  const error = await caught(createClient({ baseUrl: url }).webhooks.create({ url: 'https://x.example', enabledEvents: [] }));
  assert.equal([error.param, error.requestId], ['enabledEvents', 'hdr-9']);
});

test('given a 404 envelope, then status and code; given a non-JSON 502, then http_502 with the text', async () => {
  const { url } = await localServer((req, _n, res) => {
    if (req.url!.includes('gone')) {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    } else json(res, 404, { success: false, error: 'Webhook endpoint not found', code: 'webhook_endpoint_not_found' });
  });
  const client = createClient({ baseUrl: url, maxRetries: 0 });
  const missing = await caught(client.webhooks.retrieve('we_missing'));
  assert.equal([missing.status, missing.code, missing.param, missing.errors], [404, 'webhook_endpoint_not_found', null, {}]);
  const gateway = await caught(client.webhooks.retrieve('gone'));
  assert.equal([gateway.status, gateway.code], [502, 'http_502']);
  assert.match(gateway.message, /bad gateway/);
});

test('given success:false on a 200, then it is thrown too; given success:true, then data is answered', async () => {
  const { url } = await localServer((req, _n, res) =>
    req.url!.includes('odd') ? json(res, 200, { success: false, error: 'odd', code: 'odd_answer' }) : json(res, 200, { success: true, data: { id: 'we_1', url: 'u' } }),
  );
  const client = createClient({ baseUrl: url });
  assert.is((await caught(client.webhooks.retrieve('odd'))).code, 'odd_answer');
  assert.equal(await client.webhooks.retrieve('we_1'), { id: 'we_1', url: 'u' } as never);
});

test.run();
