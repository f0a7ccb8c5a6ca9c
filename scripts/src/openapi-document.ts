import { makeCommandRoutes } from '@cagnotte/command-api';
import { makeQueryRoutes } from '@cagnotte/query-api';
import { buildOpenApiDocument, createServices, loadConfigOrExit } from '@cagnotte/infra';
import { API_INFO } from './api';

/**
 * The OpenAPI 3.1 document of the routes as the code defines them now (what the server serves at /openapi.json):
 * `pnpm openapi` writes it to docs/openapi.json, and the SDK's types are generated from it (`pnpm sdk:generate`).
 */
export const currentOpenApiDocument = async (): Promise<ReturnType<typeof buildOpenApiDocument>> => {
  const services = await createServices({ ...loadConfigOrExit(), LOG_LEVEL: 'silent' }, { migrate: false });
  try {
    return buildOpenApiDocument([...makeCommandRoutes({ services }), ...makeQueryRoutes({ services })], API_INFO);
  } finally {
    await services.close();
  }
};
