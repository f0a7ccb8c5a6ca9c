import type { Knex } from 'knex';

export const name = '016-mail-handover';

/**
 * Mail is delivered by a job now (docs/jobs.md): the relay hands each outbox row to the job queue once and
 * records when. `next_attempt_at` stays for rows written before, and shows the job's next retry.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE mail_outbox ADD COLUMN handed_over_at timestamptz;
    CREATE INDEX mail_outbox_handover_idx ON mail_outbox (created_at) WHERE handed_over_at IS NULL AND sent_at IS NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX mail_outbox_handover_idx;
    ALTER TABLE mail_outbox DROP COLUMN handed_over_at;
  `);
}
