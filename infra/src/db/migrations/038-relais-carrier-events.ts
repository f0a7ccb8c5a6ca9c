import type { Knex } from 'knex';

export const name = '038-relais-carrier-events';

/**
 * The inbound carrier tracking log (command-api/src/relais/carrier-webhooks.ts, docs/relais.md): one row per tracking
 * update a verified carrier webhook carried. Append-only: the service only ever INSERTs (ON CONFLICT DO NOTHING: a
 * replayed update is a duplicate of the row already there) and sets `outcome` once, where it is still null, after
 * the shipment command ran. No role here can be denied UPDATE/DELETE, so that rule lives in the one writer.
 * `body_sha256` ties a row to the signed body it came in (the body itself is not kept).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE relais_carrier_events (
      id bigserial PRIMARY KEY,
      network text NOT NULL,
      tracking_number text NOT NULL,
      status text NOT NULL,
      carrier_status text NOT NULL,
      occurred_at timestamptz NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      body_sha256 text NOT NULL,
      outcome text NULL,
      UNIQUE (network, tracking_number, status, occurred_at)
    )`);
  // The sandbox advance reads a parcel's updates newest first.
  await knex.raw('CREATE INDEX relais_carrier_events_parcel ON relais_carrier_events (network, tracking_number, occurred_at DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE relais_carrier_events');
}
