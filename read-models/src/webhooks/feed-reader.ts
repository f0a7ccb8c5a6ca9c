import type { Knex } from 'knex';
import { encodeCursor, type FeedPosition } from './cursor';
import type { PublicEvent } from './catalogue';
import { PUBLIC_EVENTS_TABLE, toPublicEvent, type PublicEventRow } from './feed-table';
import type { EventPrincipal } from './principal';

/**
 * The public feed as a reader sees it (docs/events-feed.md): a tenant's public events in commit order after a cursor.
 *
 * The rows and the envelope are the catalogue's (feed-table.ts, catalogue.ts).
 */
export const FEED_TABLE = PUBLIC_EVENTS_TABLE;

export interface FeedItem {
  /** The event's place in the feed: `after=` this cursor reads on from it (and it is the SSE `id:`). */
  cursor: string;
  event: PublicEvent;
}

export interface FeedQuery {
  /** Read after this position; null from the start of the feed. */
  after: FeedPosition | null;
  /** Exact types or `prefix.*` globs (`*` alone: every type); empty or absent: every type. */
  types?: string[];
  subject?: string;
  limit: number;
}

export interface FeedPage {
  items: FeedItem[];
  /** The last item's cursor; when the page is empty, the `after` given (never goes back), or null from the start. */
  nextCursor: string | null;
}

/** What a types filter may hold: a dot type (`reservation.paid`), a prefix glob (`reservation.*`), or `*`. */
export const TYPE_PATTERN = /^(\*|[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*(\.\*)?)$/;

export const positionOfRow = (row: Pick<PublicEventRow, 'commit_text' | 'prepare_position' | 'idx'>): FeedPosition => ({
  commit: BigInt(row.commit_text),
  prepare: BigInt(row.prepare_position),
  idx: Number(row.idx),
});

export const toFeedItem = (row: PublicEventRow): FeedItem => ({ cursor: encodeCursor(positionOfRow(row)), event: toPublicEvent(row) });

/** Columns with the commit position as text for JavaScript (a name of its own: never sorted or compared as text). */
export const FEED_COLUMNS =
  'commit_position::text AS commit_text, prepare_position, idx, id, tenant_id, owner_id, type, subject, sequence, api_version, created_at, data';

/** `reservation.*` → the LIKE pattern `reservation.%` (the dots and letters of a valid glob need no escaping but `_`). */
const likeOf = (glob: string) => `${glob.slice(0, -1).replace(/_/g, '\\_')}%`;

/**
 * Narrows a query of rm_public_events to a types filter: exact types through `= ANY`, globs through `LIKE ANY`.
 * A `*` anywhere means every type (no condition).
 */
export const whereTypes = (q: Knex.QueryBuilder, types: string[] | undefined): Knex.QueryBuilder => {
  if (!types || types.length === 0 || types.includes('*')) return q;
  const exact = types.filter((t) => !t.endsWith('.*'));
  const globs = types.filter((t) => t.endsWith('.*')).map(likeOf);
  return q.where((w) => {
    if (exact.length > 0) w.orWhereRaw('type = ANY(?::text[])', [exact]);
    if (globs.length > 0) w.orWhereRaw('type LIKE ANY(?::text[])', [globs]);
  });
};

/** The events of one mode: the SQL twin of `publicEventLivemode` (principal.ts). */
export const whereMode = (q: Knex.QueryBuilder, livemode: boolean, deploymentLive: boolean): Knex.QueryBuilder =>
  q.whereRaw(`(CASE jsonb_typeof(data->'livemode') WHEN 'boolean' THEN (data->'livemode')::boolean ELSE ?::boolean END) = ?::boolean`, [deploymentLive, livemode]);

/** Rows strictly after a position, compared as a row of numbers (xid8, bigint, smallint). */
export const whereAfter = (q: Knex.QueryBuilder, after: FeedPosition | null): Knex.QueryBuilder =>
  after
    ? q.whereRaw('(commit_position, prepare_position, idx) > (?::text::xid8, ?::bigint, ?::smallint)', [after.commit.toString(), after.prepare.toString(), after.idx])
    : q;

export class PublicFeedReader {
  constructor(private readonly knex: Knex) {}

  /**
   * One page of the principal's feed. The tenant is the first condition of every query, whatever the cursor: a
   * cursor taken from another tenant's feed only names a place in commit order, and reads this tenant's events after
   * it. An organiser reads the events of their own resources (`owner_id`).
   */
  async page(principal: EventPrincipal, query: FeedQuery): Promise<FeedPage> {
    let q = this.knex(FEED_TABLE).where('tenant_id', principal.tenantId);
    if (principal.ownerId !== null) q = q.andWhere('owner_id', principal.ownerId);
    return this.read(whereMode(q, principal.livemode, principal.deploymentLive), query);
  }

  /**
   * The operator's read (`pnpm cli events tail`): every tenant's events, or one tenant's. Never behind an HTTP route:
   * a request always reads through `page` and its principal.
   */
  async operatorPage(tenantId: string | null, query: FeedQuery): Promise<FeedPage> {
    const q = this.knex(FEED_TABLE);
    return this.read(tenantId === null ? q : q.where('tenant_id', tenantId), query);
  }

  private async read(base: Knex.QueryBuilder, query: FeedQuery): Promise<FeedPage> {
    let q = whereAfter(base, query.after);
    if (query.subject !== undefined) q = q.andWhere('subject', query.subject);
    q = whereTypes(q, query.types);
    const rows = (await q
      .select(this.knex.raw(FEED_COLUMNS))
      .orderBy([{ column: 'commit_position' }, { column: 'prepare_position' }, { column: 'idx' }])
      .limit(query.limit)) as PublicEventRow[];
    const items = rows.map(toFeedItem);
    const last = items[items.length - 1];
    return { items, nextCursor: last ? last.cursor : query.after ? encodeCursor(query.after) : null };
  }
}

