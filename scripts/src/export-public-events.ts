/**
 * `pnpm public-events`: writes the public event catalogue (each type's description and the JSON Schema 2020-12 of its
 * event) to docs/public-events.json. That file is the published snapshot: commit it; the compatibility spec
 * (read-models/src/webhooks/catalogue.unit.spec.ts) compares the catalogue with it and fails on a breaking change.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { publicEventCatalogueDocument } from '@cagnotte/read-models';

const out = resolve(__dirname, '../../docs/public-events.json');
const doc = publicEventCatalogueDocument();
writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
console.log(`wrote ${out} (${Object.keys(doc.types).length} public event types, apiVersion ${doc.apiVersion})`);
