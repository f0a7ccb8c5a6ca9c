import { testPgPool } from './resources';
import { eventHash } from '../event-store/hash-chain';

/** What an attacker with the database does: trigger off, edit one event; with `rechain`, every later hash and the head recomputed. */
export const tamper = async (streamId: string, revision: number, data: unknown, rechain: boolean) => {
  const client = await testPgPool().connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    if (!rechain) {
      await client.query('UPDATE es_events SET data = $3 WHERE stream_id = $1 AND stream_revision = $2', [streamId, revision, JSON.stringify(data)]);
    } else {
      const rows = (await client.query(`SELECT * FROM es_events WHERE stream_id = $1 AND stream_revision >= $2 ORDER BY stream_revision`, [streamId, revision - 1])).rows;
      let prev: string | null = revision === 0 ? null : rows.shift().hash;
      for (const r of rows) {
        const edited = Number(r.stream_revision) === revision ? data : r.data;
        const hash = eventHash(prev, { streamId, revision: BigInt(r.stream_revision), id: r.event_id, type: r.type, schemaVersion: r.schema_version, data: edited, metadata: r.metadata });
        await client.query('UPDATE es_events SET data = $2, prev_hash = $3, hash = $4 WHERE global_position = $1', [r.global_position, JSON.stringify(edited), prev, hash]);
        prev = hash;
      }
      await client.query('UPDATE es_streams SET last_hash = $2 WHERE stream_id = $1', [streamId, prev]);
    }
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK');
    throw e;
  } finally {
    client.release();
  }
};
