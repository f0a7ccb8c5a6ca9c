import knexFactory, { type Knex } from 'knex';

/**
 * The specs' database connection, without depending on infra (which depends on this package): the test runner
 * sets DATABASE_URL to its own migrated database and closes what specs register in `__cagnotteClosers`.
 */
const closers: Array<() => Promise<void>> = ((globalThis as { __cagnotteClosers?: Array<() => Promise<void>> }).__cagnotteClosers ??= []);

export const onTestTeardown = (fn: () => Promise<void>): void => {
  closers.push(fn);
};

let shared: Knex | null = null;

export const testKnex = (): Knex => {
  if (!shared) {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error('DATABASE_URL is not set: run the specs through `pnpm test`');
    const k = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 10 } });
    shared = k;
    onTestTeardown(() => k.destroy());
  }
  return shared;
};
