#!/usr/bin/env node
// The image's HEALTHCHECK (Dockerfile). The APIs: the process answers HTTP on PORT (`/livez` where the build serves it,
// else `/health`, whose 503 also means a dependency is down). The projector worker serves no HTTP: its check is that
// PostgreSQL, where it reads events and writes read models, accepts a connection. Exit 0 healthy, 1 not.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { clearTimeout, setTimeout } from 'node:timers';
import { URL } from 'node:url';

const ROLES_WITH_HTTP = ['command-api', 'query-api', 'embedded'];
const ROLES = ['command-api', 'query-api', 'projectors', 'embedded', 'cli'];
/** ROLE, else the role named on the container's command line (`node scripts/docker/role.mjs <role>`, process 1). */
const roleOf = () => {
  if (process.env.ROLE) return process.env.ROLE;
  try {
    const argv = readFileSync('/proc/1/cmdline', 'utf8').split('\0');
    return argv.find((a) => ROLES.includes(a)) ?? 'embedded';
  } catch {
    return 'embedded';
  }
};
const role = roleOf();
const port = Number(process.env.PORT ?? 3000);
const deadline = setTimeout(() => process.exit(1), 4_000);

const get = (path) =>
  new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, timeout: 3_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });

const tcp = (host, tcpPort) =>
  new Promise((resolve) => {
    const socket = net.connect({ host, port: tcpPort, timeout: 3_000 }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });

const main = async () => {
  if (ROLES_WITH_HTTP.includes(role)) {
    const live = await get('/livez');
    if (live === 200) return true;
    return live === 404 && (await get('/health')) === 200;
  }
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/cagnotte');
  return tcp(url.hostname, Number(url.port || 5432));
};

void main().then((ok) => {
  clearTimeout(deadline);
  process.exit(ok ? 0 : 1);
});
