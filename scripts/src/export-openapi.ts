/** `pnpm openapi`: writes the OpenAPI 3.1 document the server serves at /openapi.json to docs/openapi.json. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { currentOpenApiDocument } from './openapi-document';

const main = async () => {
  const doc = await currentOpenApiDocument();
  const out = resolve(__dirname, '../../docs/openapi.json');
  writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`wrote ${out} (${Object.keys(doc.paths ?? {}).length} paths)`);
};
void main();
