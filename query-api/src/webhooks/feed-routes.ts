import { z } from 'zod';
import { NotFoundError, ValidationError } from '@cagnotte/domain/errors';
import { decimalInt, defineRoute, type FeedWaker, type RequestContext, type RouteDef } from '@cagnotte/infra';
import { TYPE_PATTERN, decodeCursor, enabledEventProblem, type EventPrincipal, type EventPrincipalLookup, type FeedPosition, type PublicFeedReader } from '@cagnotte/read-models';

/**
 * The event feed (docs/events-feed.md): GET /v1/events (a page after a cursor, long-polling up to `wait` seconds) and
 * GET /v1/events/stream (the same as Server-Sent Events, resuming from Last-Event-ID). Who reads: the tenant's
 * auditors (every event), its organisers (their own resources'), later its API keys; anyone else gets the 404 of a
 * resource that does not exist.
 */
export interface FeedRouteDeps {
  feed: PublicFeedReader;
  principals: EventPrincipalLookup;
  waker: FeedWaker;
  heartbeatMs: number;
  onStreamError?: (error: unknown) => void;
}

export const PublicEventSchema = z
  .object({
    id: z.string().describe('`evt_…`, stable forever: the same event always has this id (dedupe on it)'),
    type: z.string().describe('dot type, e.g. `reservation.paid`'),
    createdAt: z.string().describe('when the internal event happened (ISO 8601)'),
    tenant: z.string().uuid(),
    subject: z.string().describe('the id of the resource it is about (a pool, a reservation…)'),
    sequence: z.number().int().describe("the subject stream's revision: orders the events of one subject"),
    apiVersion: z.string().describe('the version of the public catalogue the data follows, e.g. `2026-11-01`'),
    data: z.record(z.string(), z.unknown()).describe('the thin public view of the resource'),
  })
  .describe('PublicEvent');

export const FeedPageSchema = z
  .object({
    items: z.array(PublicEventSchema),
    nextCursor: z
      .string()
      .nullable()
      .describe("send it back as `after`: the last item's cursor; when nothing is new, the `after` you sent (a cursor never goes back); null only for an empty feed read from its start"),
  })
  .describe('EventFeedPage');

const Cursor = z.string().max(80).refine((s) => decodeCursor(s) !== null, { message: 'is not a cursor of this feed (use a nextCursor or an event id: of the stream)' });
const Types = z
  .string()
  .max(2000)
  .transform((s) => s.split(',').map((t) => t.trim()).filter((t) => t.length > 0))
  .pipe(
    z
      .array(z.string())
      .max(50, { message: 'at most 50 types' })
      .superRefine((types, ctx) => {
        const bad = types.filter((t) => !TYPE_PATTERN.test(t));
        if (bad.length > 0) ctx.addIssue({ code: 'custom', message: `${bad.map((t) => JSON.stringify(t)).join(', ')}: each type is a dot type (\`reservation.paid\`), a prefix glob (\`reservation.*\`) or \`*\`` });
        else {
          // The catalogue decides which names exist, as for a webhook's enabledEvents: a typo is a 400, not an empty feed.
          const unknown = types.map((t) => enabledEventProblem(t)).filter((p): p is string => p !== null);
          if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: unknown.join('; ') });
        }
      }),
  );

const Filters = {
  types: Types.optional().describe('comma-separated types or prefix globs (`reservation.*,payout.settled`); absent or `*`: every type'),
  subject: z.string().min(1).max(200).optional().describe('only the events about this resource id'),
};

export const FeedQuery = z.object({
  after: Cursor.optional().describe('read after this cursor (a `nextCursor`); absent: from the start of the feed'),
  ...Filters,
  limit: decimalInt(1, 500).default(100).describe('at most this many events, 1 to 500, default 100'),
  wait: decimalInt(0, 30).default(0).describe('when nothing is new, hold the request up to this many seconds (0 to 30, default 0) and answer as soon as an event arrives'),
});

export const StreamQuery = z.object({
  after: Cursor.optional().describe('resume after this cursor when no `Last-Event-ID` header is sent'),
  ...Filters,
});

type Ctx = RequestContext<unknown, unknown, unknown>;
type Response = Ctx['res'];
type Filter = { types?: string[]; subject?: string };

const ACCESS =
  'Bearer (a session of the tenant; `/v1` API keys will be accepted the same way). Auditors of the tenant read every public event of it; an organiser reads the events of their own resources; anyone else gets a 404 `events_not_found`. Another tenant\'s events never appear, whatever the cursor.';
const CURSOR =
  'The cursor is opaque: the store position of the event (its commit, then its place in the commit), compared as numbers; events come in commit order. The whole history is kept.';

export const makeFeedRoutes = (deps: FeedRouteDeps): RouteDef[] => {
  const { feed, principals, waker } = deps;

  const principalOf = async (ctx: Ctx): Promise<EventPrincipal> => {
    const principal = await principals.resolve(ctx);
    if (!principal) throw new NotFoundError('events');
    return principal;
  };

  /** Aborted when the client goes away (the response closes before it is finished). */
  const disconnected = (res: Response): AbortSignal => {
    const ac = new AbortController();
    // Gone already (while the principal was looked up): 'close' will not come again.
    if (res.destroyed || !res.socket || res.socket.destroyed) ac.abort();
    else res.once('close', () => ac.abort());
    return ac.signal;
  };

  const list = defineRoute({
    method: 'get',
    path: '/v1/events',
    summary: "The tenant's public events after a cursor (long-poll with `wait`)",
    description: `Public events in commit order, after \`after\`, filtered by \`types\` and \`subject\`. With \`wait\` > 0 and nothing new, the request is held until an event arrives (answered at once) or \`wait\` seconds pass (then \`items\` is empty and \`nextCursor\` is the \`after\` sent). ${CURSOR} ${ACCESS} Too many open long-polls and streams for one tenant (${waker.maxWaitersPerTenant} per server) is a 429.`,
    tags: ['Events'],
    auth: 'required',
    tenant: 'optional',
    query: FeedQuery,
    success: { status: 200, description: 'A page of public events and the cursor to read on from', schema: FeedPageSchema },
    errors: [400, 401, 404, 429],
    handler: async (ctx) => {
      const principal = await principalOf(ctx);
      const q = ctx.query as z.infer<typeof FeedQuery>;
      const query = { after: q.after ? decodeCursor(q.after) : null, types: q.types, subject: q.subject, limit: q.limit };
      if (q.wait === 0) {
        const page = await feed.page(principal, query);
        return { data: { items: page.items.map((i) => i.event), nextCursor: page.nextCursor } };
      }
      // The place is taken before the first read: an event committed between that read and the wait still wakes it.
      const lease = waker.enter(principal.tenantId);
      const signal = disconnected(ctx.res);
      const deadline = Date.now() + q.wait * 1000;
      let page;
      try {
        page = await feed.page(principal, query);
        while (page.items.length === 0 && Date.now() < deadline) {
          const reason = await lease.next(deadline - Date.now(), signal);
          if (reason === 'aborted') break;
          page = await feed.page(principal, query);
          if (reason === 'closed') break;
        }
      } finally {
        lease.release();
      }
      return { data: { items: page.items.map((i) => i.event), nextCursor: page.nextCursor } };
    },
  });

  const stream = defineRoute({
    method: 'get',
    path: '/v1/events/stream',
    operationId: 'streamEvents',
    summary: "The tenant's public events as Server-Sent Events",
    description: `\`text/event-stream\`: each event is \`id: <cursor>\`, \`event: <type>\`, \`data: <the public event as JSON>\`, in commit order, then new ones as they are committed. Resumes after the \`Last-Event-ID\` header (what an EventSource sends when it reconnects), else after \`?after=\`, else from the start: a consumer that resumes from its last id loses and repeats nothing, across server restarts too. A comment \`: heartbeat\` is sent every ${Math.round(deps.heartbeatMs / 1000)} s. ${CURSOR} ${ACCESS} Errors (400, 404, 429) are answered in the JSON envelope before the stream starts.`,
    tags: ['Events'],
    auth: 'required',
    tenant: 'optional',
    query: StreamQuery,
    success: { status: 200, description: 'The stream of public events (text/event-stream)', schema: null, contentType: 'text/event-stream' },
    errors: [400, 401, 404, 429],
    responseHeaders: { 'Cache-Control': 'no-store' },
    handler: async (ctx) => {
      const principal = await principalOf(ctx);
      const q = ctx.query as z.infer<typeof StreamQuery>;
      const header = ctx.req.headers['last-event-id'];
      const lastEventId = typeof header === 'string' && header.trim() !== '' ? header.trim() : undefined;
      let after: FeedPosition | null = null;
      if (lastEventId !== undefined) {
        after = decodeCursor(lastEventId);
        if (!after) throw new ValidationError({ 'last-event-id': ['is not an event id of this stream'] }, 'Invalid query parameters');
      } else if (q.after) after = decodeCursor(q.after);
      const lease = waker.enter(principal.tenantId);
      await streamEvents(ctx.res, { feed, principal, filter: { types: q.types, subject: q.subject }, after, lease, signal: disconnected(ctx.res), heartbeatMs: deps.heartbeatMs, onError: deps.onStreamError });
      return { streamed: true };
    },
  });

  return [list, stream];
};

const STREAM_BATCH = 200;

/** Writes a chunk, waiting for the socket to drain when its buffer is full (a slow reader holds its own stream only). */
const write = (res: Response, chunk: string, signal: AbortSignal): Promise<void> => {
  if (res.write(chunk) || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
};

/**
 * The stream's loop: send what follows `after`, then wait for the tenant's next notification (or the waker's re-check),
 * until the client leaves or the server stops. Ends the response in every case and releases the waiter's place.
 */
const streamEvents = async (
  res: Response,
  o: {
    feed: PublicFeedReader;
    principal: EventPrincipal;
    filter: Filter;
    after: FeedPosition | null;
    lease: ReturnType<FeedWaker['enter']>;
    signal: AbortSignal;
    heartbeatMs: number;
    onError?: (error: unknown) => void;
  },
): Promise<void> => {
  const { signal, lease } = o;
  let after = o.after;
  let heartbeat: NodeJS.Timeout | null = null;
  try {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    // Tells an EventSource to reconnect after 1 s (it sends its Last-Event-ID then).
    await write(res, 'retry: 1000\n\n', signal);
    heartbeat = setInterval(() => {
      if (!signal.aborted) res.write(': heartbeat\n\n');
    }, o.heartbeatMs);
    while (!signal.aborted) {
      const page = await o.feed.page(o.principal, { after, ...o.filter, limit: STREAM_BATCH });
      for (const item of page.items) {
        if (signal.aborted) break;
        await write(res, `id: ${item.cursor}\nevent: ${item.event.type}\ndata: ${JSON.stringify(item.event)}\n\n`, signal);
        after = decodeCursor(item.cursor);
      }
      if (page.items.length === STREAM_BATCH) continue;
      const reason = await lease.next(60_000, signal);
      if (reason === 'aborted' || reason === 'closed') break;
    }
  } catch (error) {
    // Mid-stream (the database went away…): the stream ends; the client resumes from its last id.
    o.onError?.(error);
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    lease.release();
    res.end();
  }
};
