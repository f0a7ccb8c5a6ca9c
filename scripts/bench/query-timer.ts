import type { Knex } from 'knex';
import { nowMs, type PgPool } from './lib';

export interface QueryTimes {
  byLabel: Record<string, { calls: number; ms: number }>;
  reset(): void;
}

/** Names the statements of the append path (see infra/src/event-store/postgres.ts). */
const labelOf = (text: string): string => {
  const t = text.trim();
  if (/^BEGIN/i.test(t)) return 'BEGIN';
  if (/^COMMIT/i.test(t)) return 'COMMIT';
  if (/^ROLLBACK/i.test(t)) return 'ROLLBACK';
  if (/FOR UPDATE/i.test(t)) return 'lock head (SELECT … FOR UPDATE)';
  if (/^INSERT INTO es_streams/i.test(t)) return 'placeholder head (new stream)';
  if (/^WITH ins AS/i.test(t)) return 'insert events + move head';
  if (/pg_notify/i.test(t)) return 'notify (after commit, off the path)';
  return t.split(/\s+/).slice(0, 3).join(' ');
};

type AnyFn = (...args: unknown[]) => unknown;

/**
 * Times every statement sent through the pool's clients, on the client side (round-trip included).
 * Patches each client once as the pool opens it: use a pool dedicated to the measurement.
 */
export const timeQueries = (pool: PgPool): QueryTimes => {
  const times: QueryTimes = {
    byLabel: {},
    reset() {
      this.byLabel = {};
    },
  };
  const record = (text: string, ms: number) => {
    const label = labelOf(text);
    const entry = (times.byLabel[label] ??= { calls: 0, ms: 0 });
    entry.calls++;
    entry.ms += ms;
  };
  pool.on('connect', (client) => {
    const target = client as unknown as { query: AnyFn };
    const original = target.query.bind(client) as AnyFn;
    target.query = (...args: unknown[]) => {
      const first = args[0];
      const text = typeof first === 'string' ? first : String((first as { text?: string } | undefined)?.text ?? '');
      const started = nowMs();
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        // Callback form (pool.query uses it).
        args[args.length - 1] = (...cbArgs: unknown[]) => {
          record(text, nowMs() - started);
          return (last as AnyFn)(...cbArgs);
        };
        return original(...args);
      }
      const result = original(...args);
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        return (result as Promise<unknown>).then((r) => {
          record(text, nowMs() - started);
          return r;
        });
      }
      return result;
    };
  });
  return times;
};

/** Names the statements of the pools projection and its batch transaction (see projectors/src). */
const knexLabelOf = (sql: string): string => {
  const t = sql.trim().toLowerCase();
  const table = /(?:from|into|update)\s+"?(\w+)"?/.exec(t)?.[1] ?? '';
  const verb = t.split(/\s+/)[0] ?? '';
  if (table === 'projection_checkpoints') return `checkpoint ${verb}`;
  if (verb === 'insert' && t.includes('on conflict') && t.includes('do update')) return `upsert ${table}`;
  return `${verb} ${table}`.trim();
};

/**
 * Times knex statements from the `query` event to their `query-response`. Only valid while statements
 * run one at a time (the catch-up is sequential). BEGIN/COMMIT have no response event: counted, not timed.
 */
export const timeKnex = (knex: Knex) => {
  const byLabel: Record<string, { calls: number; timed: number; ms: number }> = {};
  let pending: { label: string; started: number } | null = null;
  const onQuery = (obj: { sql?: string }) => {
    const label = knexLabelOf(String(obj.sql ?? ''));
    (byLabel[label] ??= { calls: 0, timed: 0, ms: 0 }).calls++;
    pending = { label, started: nowMs() };
  };
  const onResponse = () => {
    if (!pending) return;
    const entry = byLabel[pending.label]!;
    entry.timed++;
    entry.ms += nowMs() - pending.started;
    pending = null;
  };
  knex.on('query', onQuery);
  knex.on('query-response', onResponse);
  return {
    byLabel,
    stop() {
      knex.off('query', onQuery);
      knex.off('query-response', onResponse);
    },
  };
};
