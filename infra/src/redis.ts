import { Redis } from 'ioredis';

export const createRedis = (url: string): Redis =>
  new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });

export type { Redis };
