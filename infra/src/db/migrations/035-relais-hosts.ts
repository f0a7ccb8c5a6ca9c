import type { Knex } from 'knex';

export const name = '035-relais-hosts';

/**
 * The community hosts' read model (projection `relais-hosts`, docs/relais.md): a row per host, its profile in `profile`
 * and the columns a search filters on (tenant, status, postal code, position, capacity); a row per booking of a
 * shipment's parcels on a day (`id` = `<hostId>:<shipmentId>`). `seq` orders lists (a number, never text); `revision` is
 * the host stream's revision of the last event folded in, so a replay changes nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rm_relais_hosts (
      id uuid PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      tenant_id uuid NOT NULL,
      user_id uuid NOT NULL,
      status text NOT NULL,
      name text NOT NULL,
      postal_code text NOT NULL,
      city text NOT NULL,
      country text NOT NULL,
      lat double precision NOT NULL,
      lng double precision NOT NULL,
      parcels_per_day integer NOT NULL,
      max_weight_g integer NOT NULL,
      profile jsonb NOT NULL,
      applied_at timestamptz NOT NULL,
      approved_at timestamptz,
      approved_by text,
      rejection_reason text,
      status_reason text,
      updated_at timestamptz NOT NULL,
      revision bigint NOT NULL
    );
    CREATE INDEX rm_relais_hosts_tenant_status_idx ON rm_relais_hosts (tenant_id, status);
    CREATE INDEX rm_relais_hosts_tenant_postal_idx ON rm_relais_hosts (tenant_id, country, postal_code);
    CREATE INDEX rm_relais_hosts_user_idx ON rm_relais_hosts (user_id);

    CREATE TABLE rm_relais_host_bookings (
      id text PRIMARY KEY,
      host_id uuid NOT NULL,
      shipment_id uuid NOT NULL,
      pool_id uuid NOT NULL,
      date date NOT NULL,
      parcels integer NOT NULL,
      released boolean NOT NULL,
      booked_at timestamptz NOT NULL,
      released_at timestamptz,
      revision bigint NOT NULL
    );
    CREATE INDEX rm_relais_host_bookings_day_idx ON rm_relais_host_bookings (host_id, date) WHERE NOT released;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rm_relais_host_bookings; DROP TABLE rm_relais_hosts;');
}
