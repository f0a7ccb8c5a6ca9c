import net from 'node:net';

/**
 * A tiny SMTP server for specs: enough of RFC 5321 for nodemailer (EHLO, MAIL, RCPT, DATA, QUIT), no TLS, no
 * auth. It keeps each message it accepted, and can hold its answer to DATA until released, so a spec can look at
 * the database while an SMTP exchange is in flight.
 */
export interface FakeSmtp {
  url: string;
  messages: string[];
  /** Until released, the server reads DATA but does not answer it (the client waits). Resolves on the first DATA held. */
  hold(): Promise<void>;
  release(): void;
  close(): Promise<void>;
}

export const startFakeSmtp = async (): Promise<FakeSmtp> => {
  const messages: string[] = [];
  const sockets = new Set<net.Socket>();
  let held: { reached: () => void; released: Promise<void>; release: () => void } | null = null;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = '';
    let inData = false;
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 fake-smtp ready');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          const h = held;
          if (h) {
            h.reached();
            void h.released.then(() => {
              messages.push(message);
              reply('250 queued');
            });
          } else {
            messages.push(message);
            reply('250 queued');
          }
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') reply('250 fake-smtp');
        else if (verb === 'DATA') {
          inData = true;
          reply('354 end with <CRLF>.<CRLF>');
        } else if (verb === 'QUIT') {
          reply('221 bye');
          socket.end();
        } else reply('250 OK');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  const release = () => {
    const h = held;
    held = null;
    h?.release();
  };
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    messages,
    hold() {
      return new Promise<void>((reached) => {
        let release!: () => void;
        const released = new Promise<void>((r) => (release = r));
        held = { reached, released, release };
      });
    },
    release,
    async close() {
      release();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
};
