import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestTeardown } from '@cagnotte/infra/src/testing/resources';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

/**
 * A real HTTP server on a random port whose answers the spec scripts: `handle` gets each request (with its number,
 * from 0) and answers it, or returns 'drop' to cut the connection without an answer (a network failure).
 */
export const localServer = async (handle: (req: Seen, n: number, res: ServerResponse) => void | 'drop'): Promise<{ url: string; seen: Seen[] }> => {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString(), at: Date.now() };
      seen.push(entry);
      if (handle(entry, seen.length - 1, res) === 'drop') req.socket.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestTeardown(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
};

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
