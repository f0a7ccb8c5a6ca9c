import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Stops a server the gentle way: it stops accepting at once, every request it has received is answered, and each
 * connection closes once it has nothing more to answer. Node's own `server.close()` also drops every connection it
 * sees idle at that instant, which includes ones just accepted whose request is still on its way (under load, a busy
 * event loop reads them late): those are given `graceMs` to show a request before idle connections are closed.
 * Answers sent while draining say `Connection: close`, so keep-alive clients do not send another on that connection.
 */
export const drainable = (server: Server) => {
  const answering = new Set<ServerResponse>();
  let draining = false;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    answering.add(res);
    res.once('close', () => answering.delete(res));
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
  });
  const closeIdle = server.closeIdleConnections.bind(server);

  return {
    /** Resolves once the server is closed: stopped accepting, every answer sent, every connection closed. */
    drain: (graceMs: number): Promise<void> => {
      draining = true;
      for (const res of answering) if (!res.headersSent) res.setHeader('Connection', 'close');
      const closed = new Promise<void>((resolve) => {
        // server.close() calls closeIdleConnections: held back for the grace period.
        server.closeIdleConnections = () => undefined;
        server.close(() => resolve());
      });
      let sweep: NodeJS.Timeout | undefined;
      const grace = setTimeout(() => {
        closeIdle();
        sweep = setInterval(closeIdle, 100);
      }, graceMs);
      return closed.finally(() => {
        clearTimeout(grace);
        if (sweep) clearInterval(sweep);
        server.closeIdleConnections = closeIdle;
      });
    },
  };
};
