/** `pnpm event-schemas`: writes the JSON Schema (2020-12) of every event to docs/event-schemas.json, for feed consumers. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { eventJsonSchemas } from '@cagnotte/event-schemas';

const out = resolve(__dirname, '../../docs/event-schemas.json');
const schemas = eventJsonSchemas();
writeFileSync(out, `${JSON.stringify(schemas, null, 2)}\n`);
console.log(`wrote ${out} (${Object.keys(schemas).length} events)`);
