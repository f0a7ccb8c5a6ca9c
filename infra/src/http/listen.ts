import { STATUS_CODES, createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { errorBody } from './envelope';

/** What Node's parser refused, in the envelope: it answers a bare status line otherwise. */
const answerFor = (code: string | undefined): [number, string, string] => {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'headers_too_large', 'Request line or headers too large'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'request_timeout', 'Request timed out'];
    default:
      return [400, 'malformed_request', 'Malformed HTTP request'];
  }
};

/**
 * Requests Node's HTTP parser refuses (a 20 KB URL, oversized headers, garbage) never reach express; without
 * this the client gets a bare `431` or `400` with no body. This answers them with the JSON envelope, then closes.
 */
export const answerClientErrors = (server: Server): Server =>
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, code, message] = answerFor(err.code);
    const body = JSON.stringify(errorBody(message, code));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  });

/** Serves an app on host:port, answering parser-level errors in the envelope; resolves once listening. */
export const serveApp = (app: Express, port: number, host: string): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = answerClientErrors(createServer(app));
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
