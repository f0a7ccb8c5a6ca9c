import type { Knex } from 'knex';

export const name = '010-event-anchors';

/**
 * Receipts of the anchors that commit the event log to the ledger (infra/src/event-store/anchor.ts,
 * docs/event-store.md "Anchoring"). A receipt is only a claim: `events verify` checks each one against the
 * transaction on the ledger, so editing these tables is detected like editing es_events.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE es_anchors (
      anchor_id bigint PRIMARY KEY,
      -- The root of the previous anchor (64 zeros for the first): anchors form a chain.
      prev_root text NOT NULL,
      -- Merkle root (hex) over the previous root and every event leaf: the ledger transaction's MEMO_HASH.
      root text NOT NULL,
      leaf_count integer NOT NULL,
      -- Feed positions (transaction id, sequence) of the first and last event covered.
      from_commit xid8 NOT NULL,
      from_prepare bigint NOT NULL,
      to_commit xid8 NOT NULL,
      to_prepare bigint NOT NULL,
      network_passphrase text NOT NULL,
      source_account text NOT NULL,
      tx_hash text NOT NULL UNIQUE,
      envelope_xdr text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'anchored')),
      ledger integer,
      ledger_closed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      anchored_at timestamptz
    );
    CREATE TABLE es_anchor_leaves (
      anchor_id bigint NOT NULL REFERENCES es_anchors (anchor_id) ON DELETE CASCADE,
      leaf_index integer NOT NULL,
      stream_id text NOT NULL,
      stream_revision bigint NOT NULL,
      event_id uuid NOT NULL,
      transaction_id xid8 NOT NULL,
      global_position bigint NOT NULL,
      hash text NOT NULL,
      PRIMARY KEY (anchor_id, leaf_index)
    );
    CREATE INDEX es_anchor_leaves_stream_idx ON es_anchor_leaves (stream_id, stream_revision);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE es_anchor_leaves; DROP TABLE es_anchors;');
}
