import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MANDATE_KINDS, MANDATE_TEXTS, currentMandate, mandateTexts } from './texts';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

test('mandate texts: each written-out hash is the sha256 of its text (a new wording needs a new hash and version)', () => {
  for (const kind of MANDATE_KINDS) assert.is(MANDATE_TEXTS[kind].hash, sha256(MANDATE_TEXTS[kind].text), kind);
});

test('mandate texts: currentMandate and the listing agree with the table, in FEE, COMMISSION, RELAIS order', () => {
  assert.equal(MANDATE_KINDS, ['FEE', 'COMMISSION', 'RELAIS']);
  for (const kind of MANDATE_KINDS) assert.equal(currentMandate(kind), { version: MANDATE_TEXTS[kind].version, hash: sha256(MANDATE_TEXTS[kind].text) });
  assert.equal(
    mandateTexts().map((t) => Object.keys(t)),
    MANDATE_KINDS.map(() => ['kind', 'text', 'version', 'hash']),
  );
});

test.run();
