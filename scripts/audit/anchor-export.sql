-- One anchor, its leaves, and every event of the streams it touches, as JSON for check-anchor.mjs.
-- psql -At -v anchor_id=1 -f anchor-export.sql "$DATABASE_URL" > anchor-1.json
SELECT json_build_object(
  'anchorId', a.anchor_id::text,
  'txHash', a.tx_hash,
  'prevRoot', a.prev_root,
  'leaves', (SELECT json_agg(json_build_object('streamId', l.stream_id, 'revision', l.stream_revision::text, 'hash', l.hash) ORDER BY l.leaf_index)
             FROM es_anchor_leaves l WHERE l.anchor_id = a.anchor_id),
  'streams', (SELECT json_object_agg(s.stream_id, (
                SELECT json_agg(json_build_object('revision', e.stream_revision::text, 'id', e.event_id, 'type', e.type,
                                                  'schemaVersion', e.schema_version, 'data', e.data, 'metadata', e.metadata) ORDER BY e.stream_revision)
                FROM es_events e WHERE e.stream_id = s.stream_id))
              FROM (SELECT DISTINCT stream_id FROM es_anchor_leaves WHERE anchor_id = a.anchor_id) s)
)
FROM es_anchors a WHERE a.anchor_id = :anchor_id;
