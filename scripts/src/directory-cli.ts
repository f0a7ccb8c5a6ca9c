/**
 * The operator's directory verbs (`pnpm cli tenant list`, `user list --tenant <slug>`, `pool list`), mounted by
 * cli.ts. Each prints one page as one JSON document, `{ items, nextCursor }` (the shape of the /v1 lists and of
 * `api-keys list`'s items); `--after <nextCursor>` reads the next page, and nextCursor is null on the last one.
 *
 * Pages are keyset pages, oldest first, on a numeric or time key with the id as a tiebreak: tenants by creation
 * time, accounts by registration time (microseconds, as PostgreSQL keeps them), pools by their `seq`. A record
 * created while an operator pages lands on a later page, never shifts the ones already read.
 */
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import type { Services } from '@cagnotte/infra';
import { PoolStatus } from '@cagnotte/event-schemas';
import { ACCOUNTS_TABLE, POOL_TABLES, TENANTS_TABLE, TenantReadModel } from '@cagnotte/read-models';

type Command = (s: Services, args: string[]) => Promise<void>;

export interface DirectoryCliDeps {
  usage: (message: string) => Error;
  print: (value: unknown) => void;
  /** Brings the read models up to the head first, so a record written a moment ago is listed. */
  catchUp: (s: Services) => Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A time key (microseconds since the epoch, exact) and the row's id. */
interface TimeKey {
  us: string;
  id: string;
}

const encode = (parts: string[]) => Buffer.from(parts.join(':'), 'utf8').toString('base64url');
const decode = (cursor: string, kind: string, n: number): string[] | null => {
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  return parts.length === n && parts[0] === kind ? parts.slice(1) : null;
};

/** `--limit` (1 to 1000, default 100) and `--after` as a decoded key; refuses what it cannot read. */
const paging = <K>(usage: DirectoryCliDeps['usage'], values: { limit?: string; after?: string }, read: (cursor: string) => K | null) => {
  const limit = values.limit === undefined ? 100 : /^\d{1,4}$/.test(values.limit) ? Number(values.limit) : NaN;
  if (!(limit >= 1 && limit <= 1000)) throw usage('--limit takes 1 to 1000');
  let after: K | null = null;
  if (values.after !== undefined) {
    after = read(values.after);
    if (!after) throw usage('--after takes the nextCursor of a previous page of this list');
  }
  return { limit, after };
};

const timeCursor = (cursor: string): TimeKey | null => {
  const p = decode(cursor, 't', 3);
  return p && /^-?\d{1,20}$/.test(p[0]!) && UUID.test(p[1]!) ? { us: p[0]!, id: p[1]! } : null;
};

/** The rows after `after` in (time, id) order, one more than `limit` (to know whether a next page exists). */
const afterTime = (q: Knex.QueryBuilder, column: string, idColumn: string, after: TimeKey | null) =>
  after ? q.whereRaw(`(??, ??) > ('epoch'::timestamptz + ?::bigint * interval '1 microsecond', ?::uuid)`, [column, idColumn, after.us, after.id]) : q;

/** `{ items, nextCursor }` from limit+1 rows. */
const page = <R, V>(rows: R[], limit: number, view: (r: R) => V, cursorOf: (r: R) => string) => {
  const items = rows.slice(0, limit);
  return { items: items.map(view), nextCursor: rows.length > limit ? cursorOf(items[items.length - 1]!) : null };
};

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export const directoryCommands = ({ usage, print, catchUp }: DirectoryCliDeps): Record<string, Command> => {
  const tenantOf = async (s: Services, slug: string) => {
    const tenant = await new TenantReadModel(s.knex, 0).bySlug(slug.toLowerCase());
    if (!tenant) throw usage(`no tenant ${slug}`);
    return tenant;
  };

  return {
    'tenant list': async (s, args) => {
      const { values } = parseArgs({ args, options: { limit: { type: 'string' }, after: { type: 'string' } } });
      const { limit, after } = paging(usage, values, timeCursor);
      await catchUp(s);
      type Row = { id: string; slug: string; name: string; white_label: boolean; approved_origins: string[]; created_at: Date; at_us: string };
      const rows: Row[] = await afterTime(
        s.knex(TENANTS_TABLE).select('id', 'slug', 'name', 'white_label', 'approved_origins', 'created_at', s.knex.raw('(extract(epoch FROM created_at) * 1000000)::bigint AS at_us')),
        'created_at',
        'id',
        after,
      )
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .limit(limit + 1);
      print(
        page(
          rows,
          limit,
          (r) => ({ tenantId: r.id, slug: r.slug, name: r.name, whiteLabel: r.white_label, approvedOrigins: r.approved_origins, createdAt: iso(r.created_at) }),
          (r) => encode(['t', String(r.at_us), r.id]),
        ),
      );
    },
    'user list': async (s, args) => {
      const { values } = parseArgs({ args, options: { tenant: { type: 'string' }, limit: { type: 'string' }, after: { type: 'string' } } });
      if (!values.tenant) throw usage('user list needs --tenant <slug>');
      const { limit, after } = paging(usage, values, timeCursor);
      const tenant = await tenantOf(s, values.tenant);
      await catchUp(s);
      type Row = { id: string; email: string; display_name: string; role: string; account_type: string; country: string; registered_at: Date; blocked_at: Date | null; at_us: string };
      const rows: Row[] = await afterTime(
        s
          .knex(`${ACCOUNTS_TABLE} as a`)
          .leftJoin('credentials as c', 'c.user_id', 'a.id')
          .where('a.tenant_id', tenant.id)
          .select('a.id', 'a.email', 'a.display_name', 'a.role', 'a.account_type', 'a.country', 'a.registered_at', 'c.blocked_at', s.knex.raw('(extract(epoch FROM a.registered_at) * 1000000)::bigint AS at_us')),
        'a.registered_at',
        'a.id',
        after,
      )
        .orderBy([{ column: 'a.registered_at' }, { column: 'a.id' }])
        .limit(limit + 1);
      print({
        tenant: tenant.slug,
        ...page(
          rows,
          limit,
          (r) => ({ id: r.id, email: r.email, displayName: r.display_name, role: r.role, accountType: r.account_type, country: r.country, registeredAt: iso(r.registered_at), blocked: r.blocked_at !== null }),
          (r) => encode(['t', String(r.at_us), r.id]),
        ),
      });
    },
    'pool list': async (s, args) => {
      const { values } = parseArgs({ args, options: { tenant: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' }, after: { type: 'string' } } });
      const status = values.status === undefined ? undefined : PoolStatus.safeParse(values.status.toUpperCase());
      if (status && !status.success) throw usage(`--status takes ${PoolStatus.options.join(', ')}`);
      const { limit, after } = paging(usage, values, (cursor) => {
        const p = decode(cursor, 's', 2);
        return p && /^\d{1,19}$/.test(p[0]!) ? p[0]! : null;
      });
      const tenant = values.tenant === undefined ? null : await tenantOf(s, values.tenant);
      await catchUp(s);
      type Row = { id: string; seq: string; slug: string; organiser_id: string; type: string; status: string; marketplace_visibility: string; archived_at: Date | null; country: string; title: string; created_at: Date; updated_at: Date };
      const q = s
        .knex(`${POOL_TABLES.pools} as p`)
        .join(`${TENANTS_TABLE} as t`, 't.id', 'p.tenant_id')
        .select('p.id', 'p.seq', 't.slug', 'p.organiser_id', 'p.type', 'p.status', 'p.marketplace_visibility', 'p.archived_at', 'p.country', 'p.title', 'p.created_at', 'p.updated_at');
      if (tenant) q.where('p.tenant_id', tenant.id);
      if (status?.data) q.where('p.status', status.data);
      if (after) q.whereRaw('p.seq > ?::bigint', [after]);
      const rows: Row[] = await q.orderBy('p.seq').limit(limit + 1);
      print(
        page(
          rows,
          limit,
          (r) => ({
            id: r.id,
            tenant: r.slug,
            organiserId: r.organiser_id,
            type: r.type,
            status: r.status,
            visibility: r.marketplace_visibility,
            archivedAt: iso(r.archived_at),
            country: r.country,
            title: r.title,
            createdAt: iso(r.created_at),
            updatedAt: iso(r.updated_at),
          }),
          (r) => encode(['s', String(r.seq)]),
        ),
      );
    },
  };
};
