import { createHmac } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { signRelaisPayload, verifyRelaisSignature } from './signature';

const test = suite('X-Relais-Signature (HMAC-SHA256 of the raw body)');
const secret = 'whrelais-test-secret-0123456789abcdef';
const body = Buffer.from('{"shipment":{"tracking_number":"SBX-1","events":[{"code":"DELIVERED","at":"2026-11-27T09:00:00Z"}]}}');

test('given a body signed with the secret, when verified, then it passes, as a Buffer or a string, the prefix any case', () => {
  const header = signRelaisPayload(secret, body);
  assert.is(header, `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  assert.ok(verifyRelaisSignature(secret, body, header));
  assert.ok(verifyRelaisSignature(secret, body.toString('utf8'), header));
  assert.ok(verifyRelaisSignature(secret, body, `SHA256=${header.slice(7).toUpperCase()}`));
});

test('given a missing or malformed header, when verified, then it fails', () => {
  for (const header of [undefined, null, '', 'sha256=', 'sha1=abc', signRelaisPayload(secret, body).slice(7), ['sha256=00']]) {
    assert.not.ok(verifyRelaisSignature(secret, body, header as string | undefined), String(header));
  }
});

test('given a signature of the wrong length (shorter, longer), when verified, then it fails without throwing', () => {
  const good = signRelaisPayload(secret, body);
  assert.not.ok(verifyRelaisSignature(secret, body, good.slice(0, -2)));
  assert.not.ok(verifyRelaisSignature(secret, body, `${good}00`));
});

test('given another secret, one changed byte of the body, or a bad signature, when verified, then it fails', () => {
  assert.not.ok(verifyRelaisSignature(secret, body, signRelaisPayload('another-secret-0123456789abcdef', body)));
  assert.not.ok(verifyRelaisSignature(secret, Buffer.from(body.toString().replace('DELIVERED', 'DELIVERES')), signRelaisPayload(secret, body)));
  assert.not.ok(verifyRelaisSignature(secret, body, `sha256=${'0'.repeat(64)}`));
  assert.not.ok(verifyRelaisSignature('', body, signRelaisPayload('', body)));
});

test.run();
