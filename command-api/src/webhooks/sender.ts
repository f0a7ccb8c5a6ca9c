import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AttemptResult } from './outcome';

/** What a response keeps in webhook_attempts: its first 1 KB. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export type SendResult = AttemptResult & { excerpt: string | null };

/** Sockets one agent opens per receiver host:port (a receiver sees at most this many connections from a process). */
const MAX_SOCKETS_PER_HOST = 64;
/** Agents kept (one per pinned address and scheme); past it the oldest is dropped (its idle sockets close on their own). */
const MAX_AGENTS = 1_000;
/** A kept-alive socket idle this long is closed. */
const IDLE_SOCKET_MS = 30_000;

/**
 * Keep-alive agents, one per (scheme, pinned address). An agent's pool is keyed by host:port, not by the address its
 * sockets connected to: one shared agent would send an attempt pinned to a new address down a socket opened to the
 * old one (DNS changed between two attempts). One agent per address keeps every request on a socket to the address
 * checked for it, and still reuses sockets between the attempts that resolve alike (the usual case).
 */
const agents = new Map<string, http.Agent>();
const agentFor = (secure: boolean, address: { address: string; family: 4 | 6 }): http.Agent => {
  const key = `${secure ? 'https' : 'http'} ${address.family} ${address.address}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST, timeout: IDLE_SOCKET_MS };
    agent = secure ? new https.Agent(options) : new http.Agent(options);
    if (agents.size >= MAX_AGENTS) agents.delete(agents.keys().next().value!);
    agents.set(key, agent);
  }
  return agent;
};

/**
 * POSTs `body` to `url`, connecting to `address` (the one the SSRF guard checked), never to what DNS says now: the
 * request's `lookup` answers that address, while the URL's host still gives the Host header and the TLS name (SNI and
 * certificate check). Reads at most 1 KB of the answer; `timeoutMs` bounds the whole exchange.
 */
export const postWebhook = (url: URL, address: { address: string; family: 4 | 6 }, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult> =>
  new Promise((resolve) => {
    const lookup: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [address]);
      else callback(null, address.address, address.family);
    };
    const secure = url.protocol === 'https:';
    let done = false;
    const finish = (r: SendResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = (secure ? https : http).request(
      url,
      {
        method: 'POST',
        lookup,
        agent: agentFor(secure, address),
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const end = () => {
          const excerpt = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
          const retryAfter = res.headers['retry-after'];
          finish({ kind: 'answered', status: res.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : null, excerpt });
        };
        res.on('data', (c: Buffer) => {
          if (size < RESPONSE_EXCERPT_BYTES) chunks.push(c);
          size += c.length;
          if (size >= RESPONSE_EXCERPT_BYTES) {
            // Enough for the excerpt: the rest of a large answer is not read.
            end();
            res.destroy();
          }
        });
        res.on('end', end);
        res.on('error', end);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ kind: 'error', error: `timeout: no answer within ${timeoutMs} ms`, excerpt: null });
    }, timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => finish({ kind: 'error', error: `${e.code ?? 'error'}: ${e.message}`.slice(0, 500), excerpt: null }));
    req.end(body);
  });
