import type { Redis } from '../redis';

/**
 * Single use of short-lived tokens (reset tokens, SSO codes, ledger challenges): the first `consume` of an
 * id wins, atomically (SET NX), and the mark lives as long as the token could. `release` gives a use back
 * when the work it guarded failed before changing anything.
 */
export class OneTimeUse {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'once:',
  ) {}

  async consume(kind: string, id: string, ttlSeconds: number): Promise<boolean> {
    const ok = await this.redis.set(`${this.prefix}${kind}:${id}`, '1', 'EX', Math.max(1, Math.ceil(ttlSeconds)), 'NX');
    return ok === 'OK';
  }

  async release(kind: string, id: string): Promise<void> {
    await this.redis.del(`${this.prefix}${kind}:${id}`);
  }

  /** Stores a value to be taken once (GETDEL): e.g. which user asked for a challenge. */
  async put(kind: string, id: string, value: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(`${this.prefix}${kind}:${id}`, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
  }

  async take(kind: string, id: string): Promise<string | null> {
    return this.redis.getdel(`${this.prefix}${kind}:${id}`);
  }
}
