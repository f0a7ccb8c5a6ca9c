#!/usr/bin/env node
// Checks one Cagnotte anchor against the ledger WITHOUT Cagnotte's code: Node.js 18+ only (node:crypto, fetch).
// Usage: node check-anchor.mjs <horizon url> <export.json>
// export.json comes from the psql query in docs/event-store.md ("Checking an anchor without our code"):
//   { "txHash", "prevRoot", "leaves": [{ "streamId", "revision", "hash" }...],
//     "streams": { "<streamId>": [{ "revision", "id", "type", "schemaVersion", "data", "metadata" }...] } }
// It recomputes the Merkle root from the leaves, compares it with the transaction's MEMO_HASH on the ledger,
// then recomputes every exported stream's hash chain from the events' content and compares each anchored leaf.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [horizon, file] = process.argv.slice(2);
if (!horizon || !file) {
  console.error('usage: node check-anchor.mjs <horizon url> <export.json>');
  process.exit(2);
}
const exp = JSON.parse(readFileSync(file, 'utf8'));
const sha = (...parts) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();

// Leaves: sha256(0x00 ‖ "<streamId>\n<revision>\n<hash>"), the previous root first as sha256(0x00 ‖ "anchor\n<root>").
const leaf = (text) => sha(Buffer.from([0]), Buffer.from(text, 'utf8'));
let level = [leaf(`anchor\n${exp.prevRoot}`), ...exp.leaves.map((l) => leaf(`${l.streamId}\n${l.revision}\n${l.hash}`))];
// Nodes: sha256(0x01 ‖ left ‖ right); an odd last node goes up unchanged.
while (level.length > 1) {
  const next = [];
  for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? sha(Buffer.from([1]), level[i], level[i + 1]) : level[i]);
  level = next;
}
const root = level[0].toString('hex');

const res = await globalThis.fetch(`${horizon.replace(/\/$/, '')}/transactions/${exp.txHash}`);
if (!res.ok) {
  console.log(`FORGED: transaction ${exp.txHash} is not on the ledger (HTTP ${res.status})`);
  process.exit(1);
}
const tx = await res.json();
const memo = tx.memo_type === 'hash' ? Buffer.from(tx.memo, 'base64').toString('hex') : null;
let failures = 0;
if (!tx.successful || memo !== root) {
  console.log(`FORGED: ledger memo ${memo} (source ${tx.source_account}, ledger ${tx.ledger}) != root ${root} recomputed from the leaves`);
  failures++;
} else console.log(`anchor OK: root ${root} is the memo of ${exp.txHash} (ledger ${tx.ledger}, ${tx.created_at}, source ${tx.source_account})`);

// Event hashes: sha256(prevHash ‖ "\n" ‖ canonical JSON of {streamId, revision (string), id, type, schemaVersion, data, metadata}).
const canonical = (v) => {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonical(x))).join(',')}]`;
  const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
};
const anchored = new Map(exp.leaves.map((l) => [`${l.streamId}\n${l.revision}`, l.hash]));
for (const [streamId, events] of Object.entries(exp.streams ?? {})) {
  let prev = '';
  for (const e of events) {
    const body = canonical({ streamId, revision: String(e.revision), id: e.id, type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata });
    prev = createHash('sha256').update(prev).update('\n').update(body).digest('hex');
    const want = anchored.get(`${streamId}\n${e.revision}`);
    if (want !== undefined && want !== prev) {
      console.log(`FORGED: ${streamId} revision ${e.revision} (event ${e.id}) does not give the anchored hash`);
      failures++;
      break;
    }
  }
}
process.exit(failures > 0 ? 1 : 0);
