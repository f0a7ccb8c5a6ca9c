import type { Knex } from 'knex';
import type pg from 'pg';
import { createKnex, createPgPool } from '../db/database';

/** Shared connections for spec files. The test runner closes them all once uvu is done. */
// One list per process, whoever creates it first (the sandbox network's specs keep their own connection).
const closers: Array<() => Promise<void>> = ((globalThis as { __cagnotteClosers?: Array<() => Promise<void>> }).__cagnotteClosers ??= []);

export const onTestTeardown = (fn: () => Promise<void>): void => {
  closers.push(fn);
};

export const testDatabaseUrl = (): string => {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the specs through `pnpm test`');
  return url;
};

let knexInstance: Knex | null = null;
let poolInstance: pg.Pool | null = null;

export const testKnex = (): Knex => {
  if (!knexInstance) {
    const k = createKnex(testDatabaseUrl(), 10);
    knexInstance = k;
    onTestTeardown(() => k.destroy());
  }
  return knexInstance;
};

export const testPgPool = (): pg.Pool => {
  if (!poolInstance) {
    const p = createPgPool(testDatabaseUrl(), 20);
    poolInstance = p;
    onTestTeardown(() => p.end());
  }
  return poolInstance;
};
