import { createHash } from 'node:crypto';
import type pg from 'pg';
import { KeyedQueue } from '../concurrency/keyed-queue';
import { LedgerUnavailableError } from './ledger-errors';

/**
 * Turns per source account: a transaction of an account this service signs for (the platform, the anchoring
 * account) is built on the sequence number the ledger shows and must be answered before the next one reads it,
 * or both take the same number and one bounces with tx_bad_seq (docs/ledger-sequence.md).
 */
export interface SourceAccountLock {
  /** Runs `task` while no other holder of `accountId` runs; throws LedgerUnavailableError when its turn has not come in time. */
  hold<T>(accountId: string, task: () => Promise<T>): Promise<T>;
}

/** How long a transaction waits for its account's turn by default before it is a 503 the client retries. */
export const SOURCE_LOCK_TIMEOUT_MS = 30_000;

const busy = (accountId: string, ms: number) => new LedgerUnavailableError(`the ledger account ${accountId} has been busy with other transactions for ${ms} ms`);

/** One process only: tests and tools that sign alone. A deployment uses PostgresSourceLock. */
export class InProcessSourceLock implements SourceAccountLock {
  private readonly queue = new KeyedQueue();

  constructor(private readonly timeoutMs = SOURCE_LOCK_TIMEOUT_MS) {}

  hold<T>(accountId: string, task: () => Promise<T>): Promise<T> {
    return this.queue.run(accountId, task, { until: Date.now() + this.timeoutMs, timeout: () => busy(accountId, this.timeoutMs) });
  }
}

/** pg_advisory_lock(class, key): 'LSEQ', then the account's key. */
export const SOURCE_LOCK_CLASS = 0x4c534551;

/** The account's lock key: 32 bits of sha256(account id). Two accounts sharing one only take turns needlessly. */
export const sourceLockKey = (accountId: string): number => createHash('sha256').update(accountId, 'utf8').digest().readInt32BE(0);

/**
 * Every process of a deployment (command-api, projectors, the CLI) on one PostgreSQL: a session advisory lock per
 * account, held on a connection of its own from before the sequence is read until the ledger has answered. A
 * crashed holder's connection closes and PostgreSQL drops its lock. Inside a process, holders queue first
 * (KeyedQueue), so one connection at most per account waits on PostgreSQL.
 */
export class PostgresSourceLock implements SourceAccountLock {
  private readonly local = new KeyedQueue();

  constructor(
    private readonly pool: pg.Pool,
    private readonly timeoutMs = SOURCE_LOCK_TIMEOUT_MS,
  ) {}

  hold<T>(accountId: string, task: () => Promise<T>): Promise<T> {
    const until = Date.now() + this.timeoutMs;
    return this.local.run(accountId, () => this.holdAcrossProcesses(accountId, until, task), { until, timeout: () => busy(accountId, this.timeoutMs) });
  }

  private async holdAcrossProcesses<T>(accountId: string, until: number, task: () => Promise<T>): Promise<T> {
    const key = sourceLockKey(accountId);
    const client = await this.pool.connect();
    // Any doubt about the session (a failed query, an unlock that did not answer) closes the connection: its locks go with it.
    let discard = false;
    try {
      try {
        await client.query(`SELECT set_config('lock_timeout', $1, false)`, [`${Math.max(1, until - Date.now())}ms`]);
        await client.query('SELECT pg_advisory_lock($1, $2)', [SOURCE_LOCK_CLASS, key]);
        await client.query(`SELECT set_config('lock_timeout', '0', false)`);
      } catch (e) {
        discard = true;
        if ((e as { code?: string }).code === '55P03') throw busy(accountId, this.timeoutMs); // lock_not_available
        throw e;
      }
      try {
        return await task();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1, $2)', [SOURCE_LOCK_CLASS, key]).catch(() => (discard = true));
      }
    } finally {
      client.release(discard);
    }
  }
}
