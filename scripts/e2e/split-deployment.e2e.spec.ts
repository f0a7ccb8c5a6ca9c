/**
 * The split deployment (command-api, query-api and the projector worker as three processes) serves the same
 * answers as the embedded one. Here the three run in this process but share nothing but the database and
 * Redis: each has its own Services (pools, waiter, logger), so the command-api learns that its write was
 * projected only from the checkpoint table the worker writes, and the query-api only from X-Min-Position.
 */
import type { Server } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeCommandRoutes } from '@cagnotte/command-api';
import { makeQueryRoutes } from '@cagnotte/query-api';
import { PROJECTION_NAMES, createProjectorRunner, type ProjectorRunner } from '@cagnotte/projectors';
import { createApiServer, createServices, loadConfig, parsePosition, comparePositions, type Config, type Services } from '@cagnotte/infra';
import { onTestTeardown } from '@cagnotte/infra/src/testing/resources';
import { ESCROW_ACCOUNT_ID, call, groupsPool, listen, startApi, type ApiResponse, type CallOptions, type TestApi, type TestUser } from './harness';
import { TenantReadModel } from '@cagnotte/read-models';

interface Envelope<T = any> {
  success: boolean;
  data: T;
  error?: string;
  code?: string;
  errors?: Record<string, string[]>;
}

interface Split {
  embedded: TestApi;
  commandUrl: string;
  queryUrl: string;
  runner: ProjectorRunner;
  tenant: { id: string; slug: string };
  organiser: TestUser;
  poolId?: string;
  position?: string;
}

const splitConfig = (): Config => ({ ...loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), PORT: 0, HOST: '127.0.0.1' });

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });

const Split = suite<{ s?: Split }>('e2e: split deployment (command-api + query-api + projector worker)');

Split.before(async (state) => {
  // Teardown first, so that whatever got started is stopped even if the setup fails halfway.
  const servers: Server[] = [];
  const services: Services[] = [];
  let runner: ProjectorRunner | null = null;
  onTestTeardown(async () => {
    await Promise.all(servers.map(closeServer));
    await runner?.stop();
    for (const s of services) await s.close();
  });

  const embedded = await startApi();
  // The embedded projectors are stopped: from here on only the split worker moves the checkpoints.
  // (The harness' tenant() and user() still catch up explicitly, which is what they need.)
  await embedded.runner.stop();

  const commandServices = await createServices(splitConfig(), { migrate: false });
  services.push(commandServices);
  const queryServices = await createServices(splitConfig(), { migrate: false });
  services.push(queryServices);
  const workerServices = await createServices(splitConfig(), { migrate: false });
  services.push(workerServices);

  const projections = PROJECTION_NAMES;
  const commandApp = createApiServer({ services: commandServices, tenants: new TenantReadModel(commandServices.knex),
    routes: makeCommandRoutes({ services: commandServices }),
    projections,
    info: { title: 'Cagnotte command API', version: '1.0.0', description: 'Write side of the marketplace API.' },
  });
  const queryApp = createApiServer({ services: queryServices, tenants: new TenantReadModel(queryServices.knex),
    routes: makeQueryRoutes({ services: queryServices }),
    projections,
    info: { title: 'Cagnotte query API', version: '1.0.0', description: 'Read side of the marketplace API.' },
  });
  runner = createProjectorRunner(workerServices);
  await runner.start();

  const command = await listen(commandApp);
  servers.push(command.server);
  const query = await listen(queryApp);
  servers.push(query.server);

  const tenant = await embedded.tenant();
  const organiser = await embedded.user(tenant.slug, { role: 'organiser', accountType: 'BUSINESS' });
  state.s = { embedded, commandUrl: command.url, queryUrl: query.url, runner, tenant, organiser };
});

const as = (s: Split, extra: CallOptions = {}): CallOptions => ({ token: s.organiser.token, tenant: s.tenant.slug, ...extra });
const withPosition = (s: Split, position: string): CallOptions => as(s, { headers: { 'x-min-position': position } });

const positionOf = (res: ApiResponse<unknown>): string => {
  const p = res.headers.get('x-event-position');
  assert.ok(p && parsePosition(p), `X-Event-Position missing or malformed: ${p}`);
  return p!;
};

const isNotFoundRoute = (res: ApiResponse<Envelope>, what: string) => {
  assert.is(res.status, 404, `${what}: ${res.status} ${res.text}`);
  assert.is(res.body.success, false, what);
  assert.is(res.body.code, 'route_not_found', what);
  assert.type(res.body.error, 'string', what);
};

Split('POST /api/pools on command-api answers 201 from the read model the separate worker wrote', async ({ s }) => {
  const sp = s!;
  const started = Date.now();
  const res = await call<Envelope>(sp.commandUrl, 'POST', '/api/pools', as(sp, { body: groupsPool() }));
  assert.is(res.status, 201, res.text);
  const took = Date.now() - started;
  const pool = res.body.data;
  assert.is(pool.title, groupsPool().title);
  assert.is(pool.status, 'DRAFT');
  assert.is(pool.tenantId, sp.tenant.id);
  // Only the read model has these (the fold fallback answers no members and no pick-up points): the
  // command-api waited for the worker's checkpoint rather than timing out.
  assert.is(pool.pickupPoints.length, 2, 'pick-up points come from the read model');
  assert.is(pool.members.length, 1, 'the organiser membership comes from the read model');
  assert.ok(took < splitConfig().READ_YOUR_WRITES_TIMEOUT_MS, `the command waited ${took} ms: it timed out instead of seeing the checkpoint`);
  assert.equal(pool.config.escrow, { accountId: ESCROW_ACCOUNT_ID }, 'the owner sees the escrow account id, and only it');
  sp.poolId = pool.id;
  sp.position = positionOf(res);
});

Split('the query-api reads the write with X-Min-Position', async ({ s }) => {
  const sp = s!;
  const one = await call<Envelope>(sp.queryUrl, 'GET', `/api/pools/${sp.poolId}`, withPosition(sp, sp.position!));
  assert.is(one.status, 200, one.text);
  assert.is(one.headers.get('x-consistency'), 'fresh');
  assert.is(one.body.data.id, sp.poolId);
  assert.is(one.body.data.title, groupsPool().title);

  const list = await call<Envelope>(sp.queryUrl, 'GET', '/api/merchant/pools', withPosition(sp, sp.position!));
  assert.is(list.status, 200, list.text);
  assert.is(list.headers.get('x-consistency'), 'fresh');
  assert.equal(
    list.body.data.items.map((p: { id: string }) => p.id),
    [sp.poolId],
  );
});

Split('PATCH on command-api, then the query-api at the new position sees the new title', async ({ s }) => {
  const sp = s!;
  const title = 'Paniers du samedi (split)';
  const res = await call<Envelope>(sp.commandUrl, 'PATCH', `/api/pools/${sp.poolId}`, as(sp, { body: { title } }));
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.title, title);
  assert.is(res.body.data.refund, null);
  const position = positionOf(res);
  assert.ok(comparePositions(parsePosition(position)!, parsePosition(sp.position!)!) > 0, `${position} is not after ${sp.position}`);
  sp.position = position;

  const read = await call<Envelope>(sp.queryUrl, 'GET', `/api/pools/${sp.poolId}`, withPosition(sp, position));
  assert.is(read.status, 200, read.text);
  assert.is(read.headers.get('x-consistency'), 'fresh');
  assert.is(read.body.data.title, title);
  const merchant = await call<Envelope>(sp.queryUrl, 'GET', `/api/merchant/pools/${sp.poolId}`, withPosition(sp, position));
  assert.is(merchant.status, 200, merchant.text);
  assert.is(merchant.body.data.title, title);
});

Split('archive on command-api, then GET /api/merchant/pools?archived=true on the query-api lists it', async ({ s }) => {
  const sp = s!;
  const res = await call<Envelope>(sp.commandUrl, 'POST', `/api/pools/${sp.poolId}/archive`, as(sp));
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.id, sp.poolId);
  assert.type(res.body.data.archivedAt, 'string');
  const position = positionOf(res);
  sp.position = position;

  const archived = await call<Envelope>(sp.queryUrl, 'GET', '/api/merchant/pools?archived=true', withPosition(sp, position));
  assert.is(archived.status, 200, archived.text);
  assert.is(archived.headers.get('x-consistency'), 'fresh');
  const item = archived.body.data.items.find((p: { id: string }) => p.id === sp.poolId);
  assert.ok(item, `pool not in ?archived=true: ${archived.text}`);
  assert.is(item.archivedAt, res.body.data.archivedAt);

  const live = await call<Envelope>(sp.queryUrl, 'GET', '/api/merchant/pools?archived=false', withPosition(sp, position));
  assert.is(live.status, 200, live.text);
  assert.equal(live.body.data.items, []);
});

Split('the query-api answers exactly what the embedded api answers', async ({ s }) => {
  const sp = s!;
  const reads = [
    `/api/pools/${sp.poolId}`,
    `/api/merchant/pools/${sp.poolId}`,
    '/api/merchant/pools',
    '/api/merchant/pools?archived=true',
    '/api/merchant/pools?archived=false&type=GROUPS',
    '/api/pools',
    '/api/pools?archived=true&limit=5',
    '/api/auth/me',
  ];
  for (const path of reads) {
    const [split, embedded] = await Promise.all([
      call<Envelope>(sp.queryUrl, 'GET', path, withPosition(sp, sp.position!)),
      call<Envelope>(sp.embedded.url, 'GET', path, withPosition(sp, sp.position!)),
    ]);
    assert.is(split.status, 200, `query-api ${path}: ${split.text}`);
    assert.is(embedded.status, 200, `embedded ${path}: ${embedded.text}`);
    assert.equal(split.body.data, embedded.body.data, path);
  }
  // Errors too: an archived DRAFT pool is not readable anonymously, on either.
  const [split, embedded] = await Promise.all([
    call<Envelope>(sp.queryUrl, 'GET', `/api/pools/${sp.poolId}`),
    call<Envelope>(sp.embedded.url, 'GET', `/api/pools/${sp.poolId}`),
  ]);
  assert.is(split.status, 404, split.text);
  assert.is(embedded.status, 404, embedded.text);
  // The same answer but for each request's own id.
  const { requestId: splitId, ...splitBody } = split.body as Envelope & { requestId?: string };
  const { requestId: embeddedId, ...embeddedBody } = embedded.body as Envelope & { requestId?: string };
  assert.is(splitId, split.headers.get('x-request-id'));
  assert.is(embeddedId, embedded.headers.get('x-request-id'));
  assert.equal(splitBody, embeddedBody);
});

Split('a route of the other side is a 404 envelope on each split app', async ({ s }) => {
  const sp = s!;
  const id = sp.poolId!;
  // Reads on the command-api.
  for (const path of [`/api/pools/${id}`, `/api/merchant/pools/${id}`, '/api/merchant/pools', '/api/pools', '/api/auth/me', '/api/merchant/profile']) {
    isNotFoundRoute(await call<Envelope>(sp.commandUrl, 'GET', path, as(sp)), `command-api GET ${path}`);
  }
  // Writes on the query-api.
  const writes: Array<[string, string, unknown]> = [
    ['POST', '/api/pools', groupsPool()],
    ['POST', '/api/merchant/pools', groupsPool()],
    ['PATCH', `/api/pools/${id}`, { title: 'nope' }],
    ['PATCH', `/api/merchant/pools/${id}`, { title: 'nope' }],
    ['POST', `/api/pools/${id}/archive`, undefined],
    ['DELETE', `/api/pools/${id}/archive`, undefined],
    ['POST', `/api/pools/${id}/publish`, undefined],
    ['POST', '/api/auth/login/password', { email: sp.organiser.email, password: sp.organiser.password }],
    ['POST', '/api/auth/logout', undefined],
  ];
  for (const [method, path, body] of writes) {
    isNotFoundRoute(await call<Envelope>(sp.queryUrl, method, path, as(sp, body === undefined ? {} : { body })), `query-api ${method} ${path}`);
  }
  // And each documents only its own side.
  const commandDoc = (await call<{ paths: Record<string, Record<string, unknown>> }>(sp.commandUrl, 'GET', '/openapi.json')).body;
  const queryDoc = (await call<{ paths: Record<string, Record<string, unknown>> }>(sp.queryUrl, 'GET', '/openapi.json')).body;
  const methods = (doc: typeof commandDoc) => Object.values(doc.paths).flatMap((m) => Object.keys(m));
  // The one GET of the write side: SSO start is a browser navigation that mints a session (a command). Every
  // process also serves the probes (/livez, /readyz).
  const commandGets = Object.entries(commandDoc.paths).filter(([p, m]) => 'get' in m && p !== '/livez' && p !== '/readyz').map(([p]) => p);
  assert.equal(commandGets, ['/api/auth/sso/start'], 'command-api documents no other GET');
  assert.ok(methods(queryDoc).every((m) => m === 'get'), 'query-api documents a write');
  // The session is untouched by the 404 logout above.
  const me = await call<Envelope>(sp.queryUrl, 'GET', '/api/auth/me', as(sp));
  assert.is(me.status, 200, me.text);
});

Split('X-Min-Position: garbage is a 400 envelope on the query-api', async ({ s }) => {
  const sp = s!;
  for (const path of [`/api/pools/${sp.poolId}`, '/api/merchant/pools', '/api/pools']) {
    for (const garbage of ['garbage', '1', '-1-1', '1-x', `${'9'.repeat(21)}-1`]) {
      const res = await call<Envelope>(sp.queryUrl, 'GET', path, withPosition(sp, garbage));
      assert.is(res.status, 400, `${path} X-Min-Position ${garbage}: ${res.status} ${res.text}`);
      assert.is(res.body.success, false);
      assert.type(res.body.error, 'string');
      assert.is(res.body.code, 'validation_failed');
      assert.ok(res.body.errors?.['X-Min-Position'], res.text);
    }
  }
});

Split.run();
