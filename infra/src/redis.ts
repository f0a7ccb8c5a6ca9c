import { Redis } from 'ioredis';

/** A Redis client; every key it writes (scripts' KEYS included) is prefixed with `keyPrefix`. */
export const createRedis = (url: string, keyPrefix = ''): Redis =>
  new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false, keyPrefix });

/** Deletes every key under a prefix (SCAN, never KEYS): a test run cleans its own keyspace and nothing else. */
export const deleteKeysWithPrefix = async (url: string, prefix: string): Promise<number> => {
  if (!prefix) throw new Error('refusing to delete every key: no prefix');
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
};

export type { Redis };
