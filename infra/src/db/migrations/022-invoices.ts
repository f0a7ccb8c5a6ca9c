import type { Knex } from 'knex';

export const name = '022-invoices';

/**
 * The invoices read model (projectors/src/invoicing/projection.ts): one row per InvoiceIssued, the document as issued
 * (jsonb) beside the columns the lists filter on. Who may read a row: its issuer, its recipient, the tenant's auditors.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rm_invoices (
      invoice_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      issuer_kind text NOT NULL,
      issuer_id text NOT NULL,
      recipient_kind text NOT NULL,
      recipient_id text NOT NULL,
      kind text NOT NULL,
      type_code text NOT NULL,
      number text NOT NULL,
      sequence integer NOT NULL,
      issue_date date NOT NULL,
      pool_id uuid NOT NULL,
      reservation_id uuid NULL,
      corrects uuid NULL,
      source_key text NOT NULL,
      grand_total numeric(17, 2) NOT NULL,
      document jsonb NOT NULL,
      issued_at timestamptz NOT NULL,
      UNIQUE (tenant_id, issuer_kind, issuer_id, number)
    )`);
  await knex.raw('CREATE INDEX rm_invoices_issuer ON rm_invoices (tenant_id, issuer_id, issue_date DESC)');
  await knex.raw('CREATE INDEX rm_invoices_recipient ON rm_invoices (tenant_id, recipient_id, issue_date DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rm_invoices');
}
