import http from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * The webhook benchmark's receiver, in a process of its own (so that it does not share an event loop with the
 * delivery worker or the load generator): answers 200 to every POST, keep-alive, and notes each receipt as
 * `[webhook-id, path, wall-clock ms]` (performance.timeOrigin + now(): the parent stamps its appends with the same
 * clock, so a receipt's delay is comparable across the two processes of one machine).
 *
 * IPC: tells the parent `{ port }` once listening. `{ expect: n }` answers `{ reached: n, at }` as soon as n receipts
 * are in (at once if they already are); `'dump'` answers `{ receipts, duplicates }`; `'reset'` forgets them all;
 * `'stop'` (or the parent going away) ends the process.
 */

type Receipt = [id: string, path: string, atMs: number];

const wallMs = () => performance.timeOrigin + performance.now();
const send = (m: unknown) => process.send?.(m);

let receipts: Receipt[] = [];
let seen = new Set<string>();
let duplicates = 0;
let waiting: { n: number } | null = null;

const check = () => {
  if (waiting && receipts.length >= waiting.n) {
    send({ reached: waiting.n, at: receipts[waiting.n - 1]![2] });
    waiting = null;
  }
};

const server = http.createServer((req, res) => {
  req.resume(); // the body is not read: a receiver that verifies signatures is the partner's cost, not ours
  req.on('end', () => {
    const at = wallMs();
    const id = String(req.headers['webhook-id'] ?? req.headers['x-bench-id'] ?? '');
    const key = `${req.url ?? ''} ${id}`;
    if (seen.has(key)) duplicates++;
    else seen.add(key);
    receipts.push([id, req.url ?? '', at]);
    res.writeHead(200, { 'content-length': '0' });
    res.end();
    check();
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  send({ port: typeof addr === 'object' && addr ? addr.port : 0 });
});

const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2_000).unref();
};

process.on('message', (m: unknown) => {
  if (m === 'stop') stop();
  else if (m === 'dump') send({ receipts, duplicates });
  else if (m === 'reset') {
    receipts = [];
    seen = new Set();
    duplicates = 0;
    waiting = null;
  } else if (typeof m === 'object' && m !== null && 'expect' in m) {
    waiting = { n: Number((m as { expect: number }).expect) };
    check();
  }
});
process.on('disconnect', stop);
