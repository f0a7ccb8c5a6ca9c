import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A partner's webhook receiver, as a real HTTP server on 127.0.0.1 (a free port): every request is recorded with its
 * raw body and headers, in arrival order, and answered as the spec's `answer` says for that path and that delivery's
 * n-th arrival (a status, headers, a delay, or a hang until the sender gives up).
 */
export interface ReceivedDelivery {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  /** The raw body as sent (what is signed). */
  body: string;
  /** ms since the epoch when the request was read whole. */
  at: number;
  /** 1 for the first arrival of this webhook-id on this path, 2 for the second… */
  arrival: number;
  /** What the receiver answered (null: it hung). */
  status: number | null;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer: the sender's timeout ends the attempt (the socket is closed when the receiver stops). */
  hang?: boolean;
  delayMs?: number;
}

export type AnswerFn = (delivery: { path: string; id: string; arrival: number; body: string }) => Answer;

export interface Receiver {
  url: string;
  deliveries: ReceivedDelivery[];
  /** Deliveries on one path, in arrival order. */
  on(path: string): ReceivedDelivery[];
  /** Changes how a path answers from now on (default: 200). */
  answer(path: string, fn: AnswerFn): void;
  /** Waits until `probe` holds over the deliveries (polling), or fails with what arrived. */
  until(probe: (all: ReceivedDelivery[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const header = (req: IncomingMessage, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : (v ?? '');
};

export const startReceiver = async (): Promise<Receiver> => {
  const deliveries: ReceivedDelivery[] = [];
  const arrivals = new Map<string, number>();
  const answers = new Map<string, AnswerFn>();
  const sockets = new Set<Socket>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const id = header(req, 'webhook-id');
      const key = `${path} ${id}`;
      const arrival = (arrivals.get(key) ?? 0) + 1;
      arrivals.set(key, arrival);
      const body = Buffer.concat(chunks).toString('utf8');
      const a: Answer = (answers.get(path) ?? ((): Answer => ({})))({ path, id, arrival, body });
      const delivery: ReceivedDelivery = {
        path,
        id,
        timestamp: header(req, 'webhook-timestamp'),
        signature: header(req, 'webhook-signature'),
        body,
        at: Date.now(),
        arrival,
        status: a.hang ? null : (a.status ?? 200),
      };
      deliveries.push(delivery);
      if (a.hang) return;
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(delivery.status!, { 'content-type': 'text/plain', ...(a.headers ?? {}) });
        res.end(a.body ?? (delivery.status! < 300 ? 'ok' : 'no'));
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  };
  const server = createServer(handle);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    on: (path) => deliveries.filter((d) => d.path === path),
    answer: (path, fn) => answers.set(path, fn),
    async until(probe, what, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!probe(deliveries)) {
        if (Date.now() > deadline) {
          const byPath = new Map<string, number>();
          for (const d of deliveries) byPath.set(d.path, (byPath.get(d.path) ?? 0) + 1);
          throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; received ${JSON.stringify(Object.fromEntries(byPath))}`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async close() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
};

/** The deliveries a receiver acknowledged (2xx), counted per webhook-id. */
export const acknowledgedCounts = (deliveries: ReceivedDelivery[]): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const d of deliveries) if (d.status !== null && d.status >= 200 && d.status < 300) counts.set(d.id, (counts.get(d.id) ?? 0) + 1);
  return counts;
};
