/**
 * `pnpm public-events`: writes the public event catalogue (each type's description, subject and the JSON Schema 2020-12
 * of its event) to docs/public-events.json, and its table into docs/public-events.md. The JSON is the published
 * snapshot: commit it; the compatibility spec (read-models/src/webhooks/catalogue.unit.spec.ts) compares the catalogue
 * with it and fails on a breaking change.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { publicEventCatalogueDocument } from '@cagnotte/read-models';

const docs = resolve(__dirname, '../../docs');
const doc = publicEventCatalogueDocument();
writeFileSync(resolve(docs, 'public-events.json'), `${JSON.stringify(doc, null, 2)}\n`);

const dataKeys = (schema: Record<string, unknown>) =>
  Object.keys(((schema.properties as Record<string, { properties?: Record<string, unknown> }>).data?.properties ?? {}) as Record<string, unknown>);
const table = [
  '| type | subject | what happened | data |',
  '|---|---|---|---|',
  ...Object.entries(doc.types).map(([type, t]) => `| \`${type}\` | ${t.subject} | ${t.description.replace(/\|/g, '\\|')} | ${dataKeys(t.schema).map((k) => `\`${k}\``).join(', ')} |`),
].join('\n');
const md = resolve(docs, 'public-events.md');
const page = readFileSync(md, 'utf8').replace(/<!-- catalogue:start -->[\s\S]*<!-- catalogue:end -->/, `<!-- catalogue:start -->\n${table}\n<!-- catalogue:end -->`);
writeFileSync(md, page);
console.log(`wrote docs/public-events.json and the table of docs/public-events.md (${Object.keys(doc.types).length} public event types, apiVersion ${doc.apiVersion})`);
