import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RESERVATION_TERMS } from './terms';

test('the reservation terms hash is the sha256 of their text', () => {
  assert.is(createHash('sha256').update(RESERVATION_TERMS.text, 'utf8').digest('hex'), RESERVATION_TERMS.hash);
});

test.run();
