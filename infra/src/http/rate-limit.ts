import type { Redis } from 'ioredis';
import type { Logger } from '../logger';
import { RateLimitedError } from './errors';

export interface RateLimitRule {
  /** Bucket name, e.g. `login`. */
  name: string;
  limit: number;
  windowSeconds: number;
}

// INCR and set the window's expiry on first hit, atomically; returns [count, ttl in ms].
const SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

/**
 * Fixed-window counters in Redis, per rule and client IP. When Redis is unreachable the request is let
 * through and the failure logged: an outage of the limiter must not become an outage of the API.
 */
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly prefix = 'rl',
  ) {}

  async hit(rule: RateLimitRule, subject: string): Promise<void> {
    const key = `${this.prefix}:${rule.name}:${subject}`;
    let result: [number, number];
    try {
      result = (await this.redis.eval(SCRIPT, 1, key, String(rule.windowSeconds * 1000))) as [number, number];
    } catch (err) {
      this.logger.warn({ err, rule: rule.name }, 'rate limiter unavailable; request allowed');
      return;
    }
    const [count, ttlMs] = result;
    if (count > rule.limit) throw new RateLimitedError(Math.max(1, Math.ceil(ttlMs / 1000)), rule.name);
  }

  /** Clears a subject's counters (tests and the operator CLI). */
  async reset(rule: RateLimitRule, subject: string): Promise<void> {
    await this.redis.del(`${this.prefix}:${rule.name}:${subject}`);
  }
}
