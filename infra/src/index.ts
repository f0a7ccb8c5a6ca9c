export * from './event-store/port';
export * from './event-store/hash-chain';
export * from './event-store/postgres';
export * from './event-store/subscription';
export * from './db/database';
