import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postWebhook } from './sender';

/**
 * The sender against two local servers on one port: 127.0.0.1 and 127.0.0.2 (both loopback on Linux), standing for
 * what one host name resolved to at two attempts (DNS changed in between).
 */
const test = suite('webhook sender: keep-alive and the pinned address');

const listen = (host: string, port: number, name: string, seen: string[]) =>
  new Promise<http.Server>((resolve, reject) => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.push(`${name} ${req.socket.remotePort}`);
        res.writeHead(200, { 'content-length': '2' });
        res.end('ok');
      });
    });
    server.keepAliveTimeout = 10_000;
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });

test('given a kept-alive socket to the address of one attempt, when the next attempt pins another address of the same host, then it connects to that one; the same address reuses its socket', async () => {
  const seen: string[] = [];
  const a = await listen('127.0.0.1', 0, 'a', seen);
  const port = (a.address() as AddressInfo).port;
  const b = await listen('127.0.0.2', port, 'b', seen);
  try {
    const url = new URL(`http://localhost:${port}/hook`);
    const post = (address: string) => postWebhook(url, { address, family: 4 }, { 'content-type': 'application/json' }, '{}', 2_000);
    assert.equal((await post('127.0.0.1')).kind, 'answered');
    assert.equal((await post('127.0.0.1')).kind, 'answered');
    assert.equal((await post('127.0.0.2')).kind, 'answered');
    assert.equal(seen.map((s) => s.split(' ')[0]), ['a', 'a', 'b'], 'each request reached the address pinned for it');
    assert.is(seen[0]!.split(' ')[1], seen[1]!.split(' ')[1], 'the same address reused its kept-alive socket');
  } finally {
    a.closeAllConnections();
    b.closeAllConnections();
    await Promise.all([new Promise((r) => a.close(r)), new Promise((r) => b.close(r))]);
  }
});

test.run();
