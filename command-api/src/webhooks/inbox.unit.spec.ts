import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { INBOX_TOKEN } from '@cagnotte/read-models';
import { InboxTokens } from './inbox';

const test = suite('sandbox inbox tokens');

test('given a token the inbox issued, then it is recognised; under another key, or with one character changed, it is not', () => {
  const tokens = new InboxTokens(Buffer.alloc(32, 1));
  const token = tokens.issue();
  assert.match(token, INBOX_TOKEN);
  assert.ok(tokens.isIssued(token));
  assert.is.not(tokens.issue(), token);
  assert.not.ok(new InboxTokens(Buffer.alloc(32, 2)).isIssued(token));
  // Every other last character, including those that differ only in the spare bits base64 leaves in it.
  for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') {
    if (c !== token.at(-1)) assert.not.ok(tokens.isIssued(token.slice(0, -1) + c), c);
  }
  for (const bad of ['', 'ibx_', `ibx_${'A'.repeat(35)}`, token + 'A', token.replace('ibx_', 'xbi_')]) assert.not.ok(tokens.isIssued(bad), bad);
});

test.run();
