import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { createSecureContext } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postWebhook } from './sender';

/**
 * The sender over TLS, as production delivers (https only): it connects to the address the SSRF guard pinned while the
 * URL's host name stays the TLS name (SNI) and the name the certificate is checked against. The server here has a
 * self-signed certificate for `hooks.partner.test`, a name no DNS resolves: reaching it at all proves the pinned
 * address was used; the SNI it records proves the name; the refusal proves the certificate is checked (never
 * `rejectUnauthorized: false`).
 */
const test = suite('webhook sender over TLS: pinned address, SNI and certificate check');

const selfSigned = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'cagnotte-tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${name}`,
      '-addext', `subjectAltName=DNS:${name}`, '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

test('given an https endpoint whose name resolves nowhere, when the sender posts to its pinned address, then the TLS handshake names the URL host (SNI) and an untrusted certificate is refused', async () => {
  const name = 'hooks.partner.test';
  const creds = selfSigned(name);
  const sni: string[] = [];
  let requests = 0;
  // SNICallback runs on the ClientHello: it records the name the client asked for before the client checks the certificate.
  const server = https.createServer({ ...creds, SNICallback: (servername, cb) => (sni.push(servername), cb(null, createSecureContext(creds))) }, (_req, res) => {
    requests++;
    res.end('ok');
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  try {
    const result = await postWebhook(new URL(`https://${name}:${port}/in`), { address: '127.0.0.1', family: 4 }, { 'content-type': 'application/json' }, '{}', 5_000);
    assert.equal(sni, [name], 'the pinned address was reached, and the handshake named the URL host');
    assert.is(result.kind, 'error', JSON.stringify(result));
    assert.match(result.kind === 'error' ? result.error : '', /SELF_SIGNED|self[- ]signed|certificate/i, 'the certificate is checked');
    assert.is(requests, 0, 'nothing is posted over an unchecked connection');
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test.run();
