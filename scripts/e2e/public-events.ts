import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { notifyPublicEvents, type Services } from '@cagnotte/infra';

/**
 * Public events as the public-events projection writes them (rm_public_events), for the feed's specs: each row in a
 * transaction of its own, at that transaction's id (so rows come in commit order as the projection's do), then the
 * NOTIFY the projection sends.
 */
export interface InsertedEvent {
  id: string;
  type: string;
  tenant: string;
  subject: string;
  ownerId: string | null;
}

let prepare = BigInt(Date.now()) * 1000n + BigInt(Math.floor(Math.random() * 1000));

export const insertPublicEvent = async (
  knex: Knex,
  pool: Services['pgPool'],
  e: { tenant: string; ownerId?: string | null; type?: string; subject?: string; data?: Record<string, unknown> },
): Promise<InsertedEvent> => {
  const row = {
    id: `evt_${randomUUID().replace(/-/g, '')}`,
    type: e.type ?? 'pool.published',
    tenant: e.tenant,
    subject: e.subject ?? randomUUID(),
    ownerId: e.ownerId ?? null,
  };
  prepare += 1n;
  await knex.transaction(async (trx) => {
    await trx('rm_public_events').insert({
      commit_position: trx.raw('pg_current_xact_id()'),
      prepare_position: prepare.toString(),
      idx: 0,
      id: row.id,
      tenant_id: row.tenant,
      owner_id: row.ownerId,
      type: row.type,
      subject: row.subject,
      sequence: '1',
      api_version: '2026-11-01',
      created_at: new Date(),
      data: e.data ?? { id: row.subject },
    });
  });
  await notifyPublicEvents(pool, [row.tenant]);
  return row;
};

/** One Server-Sent Event as read off the wire. */
export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/**
 * An open SSE connection: its events and comments as they arrive. `next(n)` waits for the n-th event (counted from the
 * start of the connection).
 */
export const openSse = async (url: string, headers: Record<string, string>) => {
  const ac = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ac.signal });
  const errorText = res.status === 200 ? '' : await res.text();
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let ended = false;
  let buffer = '';
  const pump = (async () => {
    if (!res.body || res.status !== 200) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const e: SseEvent = {};
          let isEvent = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) {
              e.id = line.slice(4);
              isEvent = true;
            }
            else if (line.startsWith('event: ')) e.event = line.slice(7);
            else if (line.startsWith('data: ')) e.data = line.slice(6);
          }
          if (isEvent) events.push(e);
        }
      }
    } catch {
      // aborted, or the server went away
    } finally {
      ended = true;
    }
  })();
  const waitFor = async (probe: () => boolean, what: string, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!probe()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${events.length} events so far)`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    get ended() {
      return ended;
    },
    next: (n: number, timeoutMs?: number) => waitFor(() => events.length >= n, `${n} events`, timeoutMs),
    waitFor,
    errorText,
    close: async () => {
      ac.abort();
      await pump;
    },
  };
};
