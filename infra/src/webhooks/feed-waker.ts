import type pg from 'pg';
import { RateLimitedError } from '../http/errors';

/**
 * Wakes the feed's long-polls and streams when new public events of their tenant are committed (docs/events-feed.md).
 *
 * The public-events projection sends `NOTIFY public_events, '<tenantId>,<tenantId>,…'` after it commits rows
 * (`notifyPublicEvents`); an empty payload wakes every tenant. One dedicated connection per process LISTENs (opened on
 * the first waiter, reopened after a failure); a waiter also wakes every `recheckMs` so that a notification lost with
 * that connection costs at most that long, never a missed event (the waiter reads the table again, which is the truth).
 *
 * Waiters per tenant are bounded (`maxWaitersPerTenant`): one more is a 429, so one tenant's pollers cannot hold every
 * socket and database turn of the process.
 */
export const PUBLIC_EVENTS_CHANNEL = 'public_events';

/** A NOTIFY payload is at most 8000 bytes: past this many tenant ids, an empty payload (every tenant) says as much. */
const MAX_TENANTS_IN_PAYLOAD = 200;

/** The payload of a `NOTIFY public_events` for these tenants: their ids, or '' (every tenant) past what one payload holds. */
export const publicEventsPayload = (tenantIds: Iterable<string>): string => {
  const ids = [...new Set(tenantIds)];
  return ids.length > MAX_TENANTS_IN_PAYLOAD ? '' : ids.join(',');
};

/** The statement the projection runs after committing public events of these tenants (in its transaction or after). */
export const publicEventsNotification = (tenantIds: Iterable<string>): { text: string; values: string[] } => ({
  text: 'SELECT pg_notify($1, $2)',
  values: [PUBLIC_EVENTS_CHANNEL, publicEventsPayload(tenantIds)],
});

export const notifyPublicEvents = async (client: Pick<pg.ClientBase, 'query'>, tenantIds: Iterable<string>): Promise<void> => {
  const { text, values } = publicEventsNotification(tenantIds);
  await client.query(text, values);
};

/** The tenant key of a waiter for every tenant's events (the operator's `events tail --follow`). */
export const ALL_TENANTS = '*';

export type WakeReason = 'notified' | 'recheck' | 'aborted' | 'closed';

/** A waiter's place: held for a whole long-poll or stream, released at its end (in `finally`). */
export interface FeedLease {
  /** Resolves when the tenant has news, after at most `ms` (and `recheckMs`), on abort, or when the waker closes. */
  next(ms: number, signal?: AbortSignal): Promise<WakeReason>;
  readonly closed: boolean;
  release(): void;
}

export interface FeedWakerOptions {
  /** Opens the dedicated LISTEN connection (a pg.Client of its own, not one of a pool's). */
  connect: () => Promise<pg.Client>;
  maxWaitersPerTenant?: number;
  recheckMs?: number;
  onError?: (error: unknown) => void;
}

export class FeedWaker {
  private readonly waiters = new Map<string, Set<(reason: WakeReason) => void>>();
  private readonly leases = new Map<string, number>();
  /**
   * Wake counts: a lease remembers the count it has seen, so a notification that arrives while its holder reads the
   * table (not yet waiting) is not lost: its next `next` returns at once.
   */
  private wakes = 0;
  private wokeAllAt = 0;
  private readonly wokeAt = new Map<string, number>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private isClosed = false;
  readonly maxWaitersPerTenant: number;
  readonly recheckMs: number;

  constructor(private readonly o: FeedWakerOptions) {
    this.maxWaitersPerTenant = o.maxWaitersPerTenant ?? 200;
    this.recheckMs = o.recheckMs ?? 1000;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Whether the LISTEN connection is up (for specs and /health-style probes). */
  get listening(): boolean {
    return this.client !== null;
  }

  /** Takes a waiter's place for the tenant, or throws 429 when the tenant has `maxWaitersPerTenant` already. */
  enter(tenantId: string): FeedLease {
    const held = this.leases.get(tenantId) ?? 0;
    if (held >= this.maxWaitersPerTenant) throw new RateLimitedError(1, 'feed_waiters');
    this.leases.set(tenantId, held + 1);
    this.ensureListening();
    let released = false;
    let seen = this.wakes;
    return {
      next: async (ms, signal) => {
        const missed = Math.max(this.wokeAllAt, this.wokeAt.get(tenantId) ?? 0) > seen;
        seen = this.wakes;
        if (missed && !this.isClosed) return 'notified';
        const reason = await this.waitFor(tenantId, ms, signal);
        seen = this.wakes;
        return reason;
      },
      get closed() {
        return released;
      },
      release: () => {
        if (released) return;
        released = true;
        const n = (this.leases.get(tenantId) ?? 1) - 1;
        if (n <= 0) {
          this.leases.delete(tenantId);
          this.wokeAt.delete(tenantId);
        }
        else this.leases.set(tenantId, n);
      },
    };
  }

  /** How many waiters the tenant has now. */
  waiting(tenantId: string): number {
    return this.leases.get(tenantId) ?? 0;
  }

  /** Wakes the waiters of these tenants (every waiter when the list is empty): the notification's handler. */
  wake(tenantIds: string[]): void {
    this.wakes++;
    if (tenantIds.length === 0) this.wokeAllAt = this.wakes;
    // Only tenants someone waits for are remembered (the map stays as small as the set of waiting tenants).
    for (const t of [...tenantIds, ALL_TENANTS]) if (this.leases.has(t)) this.wokeAt.set(t, this.wakes);
    const targets = tenantIds.length === 0 ? [...this.waiters.keys()] : [...tenantIds, ALL_TENANTS];
    for (const t of targets) {
      const set = this.waiters.get(t);
      if (!set) continue;
      this.waiters.delete(t);
      for (const resolve of set) resolve('notified');
    }
  }

  private waitFor(tenantId: string, ms: number, signal?: AbortSignal): Promise<WakeReason> {
    if (this.isClosed) return Promise.resolve('closed');
    if (signal?.aborted) return Promise.resolve('aborted');
    return new Promise<WakeReason>((resolve) => {
      let set = this.waiters.get(tenantId);
      if (!set) this.waiters.set(tenantId, (set = new Set()));
      const done = (reason: WakeReason) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const s = this.waiters.get(tenantId);
        s?.delete(done);
        if (s && s.size === 0) this.waiters.delete(tenantId);
        resolve(reason);
      };
      const onAbort = () => done('aborted');
      const timer = setTimeout(() => done('recheck'), Math.max(0, Math.min(ms, this.recheckMs)));
      signal?.addEventListener('abort', onAbort, { once: true });
      set.add(done);
    });
  }

  private ensureListening(): void {
    if (this.client || this.connecting || this.retryTimer || this.isClosed) return;
    this.connecting = (async () => {
      let client: pg.Client | null = null;
      try {
        client = await this.o.connect();
        if (this.isClosed) {
          await client.end().catch(() => undefined);
          return;
        }
        client.on('notification', (n) => {
          if (n.channel !== PUBLIC_EVENTS_CHANNEL) return;
          this.wake((n.payload ?? '').split(',').filter((s) => s.length > 0));
        });
        const lost = (error?: unknown) => {
          if (this.client !== client) return;
          this.client = null;
          if (error) this.o.onError?.(error);
          void client!.end().catch(() => undefined);
          this.scheduleReconnect();
        };
        client.on('error', lost);
        client.on('end', () => lost());
        await client.query(`LISTEN ${PUBLIC_EVENTS_CHANNEL}`);
        this.client = client;
        // Whatever was committed while nobody listened: every waiter reads again.
        this.wake([]);
      } catch (error) {
        this.o.onError?.(error);
        if (client) await client.end().catch(() => undefined);
        this.scheduleReconnect();
      } finally {
        this.connecting = null;
      }
    })();
  }

  private scheduleReconnect(): void {
    if (this.isClosed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      // Only while someone waits: an idle process keeps no connection it does not use.
      if (this.leases.size > 0) this.ensureListening();
    }, 1000);
    this.retryTimer.unref();
  }

  /** Wakes every waiter with 'closed' (streams end, long-polls answer) and closes the connection. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    for (const set of this.waiters.values()) for (const resolve of [...set]) resolve('closed');
    this.waiters.clear();
    await this.connecting;
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }
}
