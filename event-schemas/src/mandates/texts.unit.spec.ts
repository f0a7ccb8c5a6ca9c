import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MANDATE_TEXTS, currentMandate, mandateTexts } from './texts';

const test = suite('mandate texts');

test('each hash literal is the sha256 of its text (UTF-8)', () => {
  for (const [kind, t] of Object.entries(MANDATE_TEXTS)) {
    assert.is(t.hash, createHash('sha256').update(t.text, 'utf8').digest('hex'), kind);
  }
});

test('currentMandate answers the version and hash; the listing carries every kind with its text', () => {
  assert.equal(currentMandate('FEE'), { version: MANDATE_TEXTS.FEE.version, hash: MANDATE_TEXTS.FEE.hash });
  assert.equal(mandateTexts().map((t) => t.kind), ['FEE', 'COMMISSION', 'RELAIS']);
  assert.equal(Object.keys(mandateTexts()[0]!), ['kind', 'text', 'version', 'hash']);
});

test.run();
