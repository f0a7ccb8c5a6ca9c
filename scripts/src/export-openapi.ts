/** `pnpm openapi`: writes the OpenAPI 3.1 document the server serves at /openapi.json to docs/openapi.json. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createServices, loadConfigOrExit } from '@cagnotte/infra';
import { buildApiDocument } from './openapi/document';

const main = async () => {
  const services = await createServices({ ...loadConfigOrExit(), LOG_LEVEL: 'silent' }, { migrate: false });
  try {
    const doc = buildApiDocument(services);
    const out = resolve(__dirname, '../../docs/openapi.json');
    writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
    console.log(`wrote ${out} (${Object.keys(doc.paths ?? {}).length} paths)`);
  } finally {
    await services.close();
  }
};
void main();
