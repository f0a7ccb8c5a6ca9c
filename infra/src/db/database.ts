import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations';

// bigint columns come back as strings by default; counts and revisions we parse explicitly where needed.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

export const createKnex = (url: string, max = 10): Knex =>
  knexFactory({ client: 'pg', connection: url, pool: { min: 0, max }, migrations: { tableName: 'knex_migrations' } });

export const createPgPool = (url: string, max = 20): pg.Pool => {
  // Trigram recall for search: words at least 30 % alike match (`<%`), typos and partial words included.
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, options: '-c pg_trgm.word_similarity_threshold=0.3' });
  pool.on('error', () => undefined);
  return pool;
};

/** Creates the database named in `url` when it does not exist yet (connecting to the `postgres` database to do so). */
export const ensureDatabase = async (url: string): Promise<void> => {
  const target = new URL(url);
  const dbName = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(dbName)) throw new Error(`refusing to create database with unusual name ${dbName}`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE "${dbName}"`).catch((e: { code?: string }) => {
        // Created concurrently: 42P04 when the other CREATE committed first, 23505 when both raced in the catalogue
        // (three containers of the split deployment starting at once on an empty cluster).
        if (e.code !== '42P04' && e.code !== '23505') throw e;
      });
    }
  } finally {
    await client.end();
  }
};

export const migrate = async (knex: Knex, url: string): Promise<void> => {
  // One migrator at a time across processes (embedded start, split apps and tests may start together):
  // a session-level advisory lock held on a connection of its own while knex migrates.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(7245001)');
    await knex.migrate.latest({ migrationSource });
  } finally {
    await client.query('SELECT pg_advisory_unlock(7245001)').catch(() => undefined);
    await client.end();
  }
};

export const dropDatabase = async (url: string): Promise<void> => {
  const target = new URL(url);
  const dbName = decodeURIComponent(target.pathname.replace(/^\//, ''));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
};

/** The names of the cluster's databases that start with `prefix` (for sweeping ones a killed test run left). */
export const listDatabases = async (url: string, prefix: string): Promise<string[]> => {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const rows = (await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix])).rows;
    return rows.map((r) => r.datname);
  } finally {
    await client.end();
  }
};
