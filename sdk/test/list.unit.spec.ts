import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createClient } from '../src';
import { json, localServer } from './local-server';

/** `for await` over a list walks every page through a real server: /v1 cursors, and the older shapes still served. */
const test = suite('sdk: list iterators');

const ids = ['we_5', 'we_4', 'we_3', 'we_2', 'we_1'];

/** A /v1 list, newest first: `startingAfter` gives the items after that id, `endingBefore` those before it. */
const v1List = async () =>
  localServer((req, _n, res) => {
    const q = new URL(req.url!, 'http://x').searchParams;
    const limit = Number(q.get('limit') ?? 10);
    const after = q.get('startingAfter');
    const before = q.get('endingBefore');
    let rest = ids;
    if (after) rest = ids.slice(ids.indexOf(after) + 1);
    let items = rest.slice(0, limit);
    let hasMore = rest.length > limit;
    if (before) {
      const head = ids.slice(0, ids.indexOf(before));
      items = head.slice(Math.max(0, head.length - limit));
      hasMore = head.length > limit;
    }
    json(res, 200, { success: true, data: { object: 'list', items: items.map((id) => ({ id })), hasMore, url: '/v1/webhooks' } });
  });

test('given a /v1 list of 5 and limit 2, then the iterator yields the 5 in order over 3 pages, each after the last id', async () => {
  const { url, seen } = await v1List();
  const client = createClient({ baseUrl: url });
  const got: string[] = [];
  for await (const endpoint of client.webhooks.list({ limit: 2 })) got.push(endpoint.id);
  assert.equal(got, ids);
  assert.equal(
    seen.map((s) => s.url),
    ['/v1/webhooks?limit=2', '/v1/webhooks?limit=2&startingAfter=we_4', '/v1/webhooks?limit=2&startingAfter=we_2'],
  );
});

test('given endingBefore, then it walks back toward the newest, each page before the first id', async () => {
  const { url } = await v1List();
  const got: string[] = [];
  for await (const e of createClient({ baseUrl: url }).webhooks.list({ limit: 2, endingBefore: 'we_1' } as never)) got.push((e as { id: string }).id);
  assert.equal(got, ['we_3', 'we_2', 'we_5', 'we_4']);
});

test('given a break, then no further page is asked; toArray stops at max; page() is the first page', async () => {
  const { url, seen } = await v1List();
  const client = createClient({ baseUrl: url });
  for await (const e of client.webhooks.list({ limit: 2 })) if (e.id === 'we_5') break;
  assert.is(seen.length, 1);
  assert.equal(
    (await client.webhooks.list({ limit: 2 }).toArray({ max: 3 })).map((e) => e.id),
    ['we_5', 'we_4', 'we_3'],
  );
  const page = (await client.webhooks.list({ limit: 2 }).page()) as unknown as { hasMore: boolean; items: unknown[] };
  assert.equal([page.hasMore, page.items.length], [true, 2]);
});

test('given numbered pages (pagination.hasNext), then it asks page 2, 3… until hasNext is false', async () => {
  const { url, seen } = await localServer((req, _n, res) => {
    const page = Number(new URL(req.url!, 'http://x').searchParams.get('page') ?? 1);
    const items = ids.slice((page - 1) * 2, page * 2).map((id) => ({ id }));
    json(res, 200, { success: true, data: { items, pagination: { page, limit: 2, total: 5, totalPages: 3, hasNext: page < 3 } } });
  });
  const got = (await createClient({ baseUrl: url }).webhooks.list({ limit: 2 }).toArray()).map((e) => e.id);
  assert.equal(got, ids);
  assert.equal(seen.map((s) => s.url), ['/v1/webhooks?limit=2', '/v1/webhooks?limit=2&page=2', '/v1/webhooks?limit=2&page=3']);
});

test('given the event feed (nextCursor), then it follows `after` until a page comes back empty', async () => {
  const feed = ['evt_1', 'evt_2', 'evt_3'];
  const { url, seen } = await localServer((req, _n, res) => {
    const after = new URL(req.url!, 'http://x').searchParams.get('after');
    const from = after ? feed.indexOf(after) + 1 : 0;
    const items = feed.slice(from, from + 2).map((id) => ({ id, type: 'pool.created' }));
    json(res, 200, { success: true, data: { items, nextCursor: items.at(-1)?.id ?? after } });
  });
  const got = (await createClient({ baseUrl: url }).events.list({ limit: 2 }).toArray()).map((e) => e.id);
  assert.equal(got, feed);
  assert.equal(seen.map((s) => s.url), ['/v1/events?limit=2', '/v1/events?limit=2&after=evt_2', '/v1/events?limit=2&after=evt_3']);
});

test('given a path with an id, then the list fills it and pages the same way', async () => {
  const { url, seen } = await localServer((_req, _n, res) => json(res, 200, { success: true, data: { object: 'list', items: [{ id: 'att_1' }], hasMore: false, url: '/x' } }));
  const got = await createClient({ baseUrl: url }).webhooks.attempts('we_abc', { limit: 5 }).toArray();
  assert.is(got.length, 1);
  assert.equal(seen.map((s) => s.url), ['/v1/webhooks/we_abc/attempts?limit=5']);
});

test.run();
