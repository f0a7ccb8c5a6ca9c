import type { Knex } from 'knex';

export const name = '023-reservation-deposit-fee';

/**
 * `rm_reservations.deposit_fee`: the escrow-deposit fee included in `amount` (ReservationPlaced v2, docs/fees.md).
 * Every reservation placed before v2 paid none, which is what the default says.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE rm_reservations ADD COLUMN deposit_fee text NOT NULL DEFAULT '0.00'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE rm_reservations DROP COLUMN deposit_fee');
}
