/**
 * `pnpm cli events tail` (docs/events-feed.md): the public event feed as JSON lines, for an operator or an internal
 * consumer on the machine. It reads rm_public_events directly (every tenant unless --tenant), from the start or after
 * a cursor, and with --follow keeps tailing, woken by NOTIFY public_events (one LISTEN connection) with a re-check
 * every second. Each line is the public event with its `cursor` first: `--from <cursor>` resumes after that line.
 */
import { parseArgs } from 'node:util';
import { ALL_TENANTS, type Services } from '@cagnotte/infra';
import { PublicFeedReader, TYPE_PATTERN, TenantReadModel, decodeCursor, type FeedPosition } from '@cagnotte/read-models';

type Command = (s: Services, args: string[]) => Promise<void>;

export interface EventsCliDeps {
  usage: (message: string) => Error;
}

const BATCH = 500;

/** Writes a line, waiting when stdout is full; false once stdout is closed (`| head`): the tail stops quietly. */
const writeLine = (line: string): Promise<boolean> =>
  new Promise((resolve) => {
    if (process.stdout.destroyed || !process.stdout.writable) return resolve(false);
    const ok = process.stdout.write(`${line}\n`, (err) => (err ? resolve(false) : undefined));
    if (ok) resolve(true);
    else process.stdout.once('drain', () => resolve(true));
  });

export const eventsCommands = ({ usage }: EventsCliDeps): Record<string, Command> => ({
  'events tail': async (s, args) => {
    const { values } = parseArgs({
      args,
      options: { types: { type: 'string' }, from: { type: 'string' }, follow: { type: 'boolean', default: false }, tenant: { type: 'string' }, limit: { type: 'string' } },
    });
    const types = values.types?.split(',').map((t) => t.trim()).filter((t) => t.length > 0);
    if (types?.some((t) => !TYPE_PATTERN.test(t))) throw usage('--types takes dot types or prefix globs, comma-separated (reservation.*,payout.settled)');
    let after: FeedPosition | null = null;
    if (values.from !== undefined) {
      after = decodeCursor(values.from);
      if (!after) throw usage('--from takes a cursor (the `cursor` of a line this command printed, or a nextCursor of GET /v1/events)');
    }
    let left = Infinity;
    if (values.limit !== undefined) {
      if (!/^[1-9]\d{0,8}$/.test(values.limit)) throw usage('--limit takes a whole number of events, at least 1');
      left = Number(values.limit);
    }
    let tenantId: string | null = null;
    if (values.tenant !== undefined) {
      const tenant = await new TenantReadModel(s.knex).bySlug(values.tenant.toLowerCase());
      if (!tenant) throw usage(`no tenant ${values.tenant}`);
      tenantId = tenant.id;
    }

    const reader = new PublicFeedReader(s.knex);
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    // A reader that went away (`| head`): stop, without an EPIPE stack trace.
    process.stdout.on('error', onSignal);
    // Taken before the first read: an event committed between that read and the first wait still wakes it.
    const lease = values.follow ? s.feedWaker.enter(tenantId ?? ALL_TENANTS) : null;
    try {
      while (!stop.signal.aborted && left > 0) {
        const page = await reader.operatorPage(tenantId, { after, types, limit: Math.min(BATCH, left) });
        for (const item of page.items) {
          if (!(await writeLine(JSON.stringify({ cursor: item.cursor, ...item.event })))) return;
          after = decodeCursor(item.cursor);
          left--;
        }
        if (page.items.length === BATCH) continue;
        if (!lease || left <= 0) break;
        const reason = await lease.next(60_000, stop.signal);
        if (reason === 'aborted' || reason === 'closed') break;
      }
    } finally {
      lease?.release();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.stdout.off('error', onSignal);
    }
  },
});
