import type { Knex } from 'knex';

export const name = '030-payment-requests';

/**
 * The payment requests read model (projectors/src/requests/projection.ts, docs/v1/requests.md): one row per request,
 * its document (jsonb) beside the columns the /v1 list filters on. `seq` orders the list and resolves its cursors
 * (numbers, never text); the rows of one tenant and mode are listed newest first by it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rm_payment_requests (
      seq bigint GENERATED ALWAYS AS IDENTITY,
      request_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      livemode boolean NOT NULL,
      payee_id uuid NOT NULL,
      status text NOT NULL,
      due_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      revision bigint NOT NULL,
      doc jsonb NOT NULL,
      UNIQUE (seq)
    )`);
  await knex.raw('CREATE INDEX rm_payment_requests_list ON rm_payment_requests (tenant_id, livemode, seq DESC)');
  await knex.raw('CREATE INDEX rm_payment_requests_payee ON rm_payment_requests (tenant_id, livemode, payee_id, seq DESC)');
  // A paid request's invoice is found by its source (`request:<requestId>`).
  await knex.raw('CREATE INDEX rm_invoices_source ON rm_invoices (tenant_id, source_key)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX rm_invoices_source');
  await knex.raw('DROP TABLE rm_payment_requests');
}
