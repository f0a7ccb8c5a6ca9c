import type { Knex } from 'knex';

export const name = '011-idempotency-keys';

/**
 * The answer to each request sent with an `Idempotency-Key`. A command writes its row in the same transaction
 * as its events, after them: the row exists if and only if the events do, so a retry after any crash either
 * replays the answer or runs the command for the first time. See docs/idempotency.md.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE idempotency_keys (
      scope text NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      status_code integer NOT NULL,
      -- json, not jsonb: a replay sends the body byte for byte as the first answer (same key order).
      body json NOT NULL,
      headers json NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (scope, key)
    );
    CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE idempotency_keys;');
}
