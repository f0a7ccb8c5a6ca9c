import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ConflictError, ValidationError } from '@cagnotte/domain';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const TTL_SECONDS = 24 * 3600;
const PENDING_TTL_SECONDS = 60;

interface Stored {
  state: 'pending' | 'done';
  fingerprint: string;
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Replay {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * `Idempotency-Key` on commands: the first request with a key runs and its answer is kept 24 hours, per
 * user (or IP when anonymous); a retry with the same key and the same request gets that answer again,
 * marked `Idempotent-Replayed: true`. The same key with another request is a 409, and so is a retry
 * that arrives while the first is still running. Failed requests (4xx/5xx) are not kept: they can be retried.
 */
export class IdempotencyStore {
  constructor(private readonly redis: Redis) {}

  static validKey(raw: string): string {
    if (!/^[A-Za-z0-9_.:-]{8,128}$/.test(raw)) throw new ValidationError({ 'Idempotency-Key': ['8 to 128 characters of letters, digits, _ . : -'] });
    return raw;
  }

  static fingerprint(method: string, path: string, body: unknown): string {
    return createHash('sha256').update(`${method} ${path}\n${JSON.stringify(body ?? null)}`).digest('hex');
  }

  private key(scope: string, key: string) {
    return `idem:${scope}:${key}`;
  }

  /** Claims the key, or returns the kept answer for a replay. Throws 409 on a mismatch or a request in flight. */
  async begin(scope: string, key: string, fingerprint: string): Promise<Replay | null> {
    const k = this.key(scope, key);
    const claimed = await this.redis.set(k, JSON.stringify({ state: 'pending', fingerprint } satisfies Stored), 'EX', PENDING_TTL_SECONDS, 'NX');
    if (claimed) return null;
    const raw = await this.redis.get(k);
    if (!raw) return this.begin(scope, key, fingerprint);
    const stored = JSON.parse(raw) as Stored;
    if (stored.fingerprint !== fingerprint) throw new ConflictError('idempotency_key_reused', 'This Idempotency-Key was used for another request');
    if (stored.state === 'pending') throw new ConflictError('idempotency_key_in_flight', 'A request with this Idempotency-Key is still running; retry shortly');
    return { status: stored.status!, body: stored.body, headers: stored.headers ?? {} };
  }

  async complete(scope: string, key: string, fingerprint: string, answer: Replay): Promise<void> {
    const k = this.key(scope, key);
    if (answer.status >= 400) {
      await this.redis.del(k);
      return;
    }
    await this.redis.set(k, JSON.stringify({ state: 'done', fingerprint, status: answer.status, body: answer.body, headers: answer.headers } satisfies Stored), 'EX', TTL_SECONDS);
  }

  async abandon(scope: string, key: string): Promise<void> {
    await this.redis.del(this.key(scope, key));
  }
}
