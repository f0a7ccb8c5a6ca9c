import { createHash } from 'node:crypto';
import type pg from 'pg';
import { ConflictError, ValidationError } from '@cagnotte/domain';
import type { Logger } from '../logger';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** How long an answer is kept, and replayed to a retry with its key. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** Expired rows are deleted in the background after every this many recorded answers. */
const PURGE_EVERY = 200;
const PURGE_BATCH = 5000;

/** An answer as it went out: the status, the envelope and the headers worth replaying (X-Event-Position). */
export interface Replay {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

interface Row {
  fingerprint: string;
  status_code: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * Nearly every key a route looks up is new, so the look-up is one round trip that usually finds nothing: the primary
 * key, through a statement prepared once per connection.
 */
const FIND = {
  name: 'idem_find',
  text: 'SELECT fingerprint, status_code, body, headers FROM idempotency_keys WHERE scope = $1 AND key = $2 AND expires_at > now()',
};

/**
 * Thrown by a command whose key turned out to be answered already: another request with the same key
 * committed first (its events and its answer). The command rolled back; the route replays that answer.
 */
export class IdempotencyKeyAnswered extends Error {
  constructor() {
    super('another request with this Idempotency-Key committed first');
    this.name = 'IdempotencyKeyAnswered';
  }
}

/**
 * One request's hold on its `Idempotency-Key`. A command that appends events records its answer with
 * `recordWithin` in the transaction of those events, after them; the route records any other answer
 * (a command that changed nothing, an event store without shared transactions) once it has it.
 */
export class IdempotencyClaim {
  private pending: Replay | null = null;
  private kept = false;

  constructor(
    private readonly store: IdempotencyStore,
    readonly scope: string,
    readonly key: string,
    readonly fingerprint: string,
    /** The route's success status, for answers that do not name one. */
    private readonly successStatus: number,
  ) {}

  /** The answer as it will be sent and replayed. */
  answerOf(result: { status?: number; data: unknown; headers?: Record<string, string> }): Replay {
    return { status: result.status ?? this.successStatus, body: { success: true, data: result.data }, headers: result.headers ?? {} };
  }

  /**
   * Writes the answer inside the caller's transaction, after its events, so that it commits or rolls back with
   * them. Throws `IdempotencyKeyAnswered` when another request with this key committed first: roll back.
   * Call `committed()` once the transaction has committed.
   */
  async recordWithin(client: pg.ClientBase, answer: Replay): Promise<void> {
    await IdempotencyClaim.recordAllWithin(client, [{ claim: this, answer }]);
  }

  /**
   * `recordWithin` for the claims of several commands appended together (one group commit): one insert of all
   * their answers. Throws `IdempotencyKeyAnswered` when any key is answered already: roll the whole transaction
   * back. The claims must come from one store and hold distinct keys.
   */
  static async recordAllWithin(client: pg.ClientBase, answers: { claim: IdempotencyClaim; answer: Replay }[]): Promise<void> {
    if (answers.length === 0) return;
    const store = answers[0]!.claim.store;
    if (answers.some((a) => a.claim.store !== store)) throw new Error('recordAllWithin: claims of one idempotency store only');
    if ((await store.insertMany(client, answers)) < answers.length) throw new IdempotencyKeyAnswered();
    for (const { claim, answer } of answers) claim.pending = answer;
  }

  /**
   * The event store wrote this answer with the command's events (PostgresEventStore.append's `answers`) and they
   * committed: the answer is kept (and cached), as after `recordWithin` and `committed()`.
   */
  keptWith(answer: Replay): void {
    this.pending = answer;
    this.committed();
  }

  /** The transaction that ran `recordWithin` committed: the answer is kept. */
  committed(): void {
    if (!this.pending) return;
    this.kept = true;
    this.store.afterRecord();
  }

  /** Whether the answer was kept with the command's events. */
  get recorded(): boolean {
    return this.kept;
  }
}

/**
 * `Idempotency-Key` on commands. The answer to the first request with a key is kept 24 hours, per user (or IP
 * when anonymous), in PostgreSQL, written in the same transaction as the events it reports (see
 * docs/idempotency.md): after a crash the key is there if and only if the events are. A retry with the same key
 * and request gets that answer again (`Idempotent-Replayed: true`); the same key with another request is a 409
 * `idempotency_key_reused`. There is no "pending" state: concurrent duplicates both run, the unique key lets one
 * commit and the other rolls back and replays. Failed requests (4xx/5xx) are not kept: they can be retried.
 * Look-ups go to PostgreSQL only, one round trip each: a cache in front (Redis) would add a round trip to every new
 * key, which is nearly every request, to save one on the rare retry.
 */
export class IdempotencyStore {
  private recordsSincePurge = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger | null = null,
  ) {}

  static validKey(raw: string): string {
    if (!/^[A-Za-z0-9_.:-]{8,128}$/.test(raw)) throw new ValidationError({ 'Idempotency-Key': ['8 to 128 characters of letters, digits, _ . : -'] });
    return raw;
  }

  static fingerprint(method: string, path: string, body: unknown): string {
    return createHash('sha256').update(`${method} ${path}\n${JSON.stringify(body ?? null)}`).digest('hex');
  }

  claim(scope: string, key: string, fingerprint: string, successStatus: number): IdempotencyClaim {
    return new IdempotencyClaim(this, scope, key, fingerprint, successStatus);
  }

  /** The kept answer for this claim's key, or null. Throws 409 `idempotency_key_reused` when it answered another request. */
  async replayFor(claim: IdempotencyClaim): Promise<Replay | null> {
    const stored = await this.find(claim.scope, claim.key);
    if (!stored) return null;
    if (stored.fingerprint !== claim.fingerprint) throw new ConflictError('idempotency_key_reused', 'This Idempotency-Key was used for another request');
    return { status: stored.status, body: stored.body, headers: stored.headers };
  }

  private async find(scope: string, key: string): Promise<(Replay & { fingerprint: string }) | null> {
    const row = (await this.pool.query<Row>({ ...FIND, values: [scope, key] })).rows[0];
    return row ? { fingerprint: row.fingerprint, status: row.status_code, body: row.body, headers: row.headers } : null;
  }

  /**
   * Inserts the answer (in the caller's transaction when `client` holds one). An expired row of the same key is
   * replaced. False when a live row exists: if another transaction is writing the key, this waits for it to end.
   */
  async insert(client: pg.ClientBase | pg.Pool, claim: IdempotencyClaim, answer: Replay): Promise<boolean> {
    return (await this.insertMany(client, [{ claim, answer }])) > 0;
  }

  /** `insert` of several answers in one statement (distinct keys); returns how many were written. */
  async insertMany(client: pg.ClientBase | pg.Pool, answers: { claim: IdempotencyClaim; answer: Replay }[]): Promise<number> {
    const r = await client.query({
      name: 'idem_insert_many',
      text: `INSERT INTO idempotency_keys (scope, key, fingerprint, status_code, body, headers, expires_at)
             SELECT s, k, f, c, b, h, now() + make_interval(secs => $7)
             FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::jsonb[], $6::jsonb[]) AS x(s, k, f, c, b, h)
             ON CONFLICT (scope, key) DO UPDATE
               SET fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code, body = EXCLUDED.body,
                   headers = EXCLUDED.headers, created_at = now(), expires_at = EXCLUDED.expires_at
               WHERE idempotency_keys.expires_at <= now()
             RETURNING 1`,
      values: [
        answers.map((a) => a.claim.scope),
        answers.map((a) => a.claim.key),
        answers.map((a) => a.claim.fingerprint),
        answers.map((a) => a.answer.status),
        answers.map((a) => JSON.stringify(a.answer.body)),
        answers.map((a) => JSON.stringify(a.answer.headers)),
        IDEMPOTENCY_TTL_SECONDS,
      ],
    });
    return r.rowCount ?? 0;
  }

  /**
   * Keeps an answer that no command transaction recorded (the command changed nothing, or the event store
   * cannot share a transaction). Returns the answer to send: this one, or the one of a request with the same
   * key that was kept first.
   */
  async record(claim: IdempotencyClaim, answer: Replay): Promise<Replay> {
    if (answer.status >= 400) return answer;
    if (await this.insert(this.pool, claim, answer)) {
      this.afterRecord();
      return answer;
    }
    return (await this.replayFor(claim)) ?? answer;
  }

  /** A kept answer: now and then the expired rows are deleted. */
  afterRecord(): void {
    if (++this.recordsSincePurge >= PURGE_EVERY) {
      this.recordsSincePurge = 0;
      void this.purgeExpired().catch((err: Error) => this.logger?.warn({ err: err.message }, 'idempotency purge failed'));
    }
  }

  /** Deletes expired answers, a batch at a time; returns how many. */
  async purgeExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const r = await this.pool.query(
        `DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT ${PURGE_BATCH})`,
      );
      total += r.rowCount ?? 0;
      if ((r.rowCount ?? 0) < PURGE_BATCH) return total;
    }
  }
}
