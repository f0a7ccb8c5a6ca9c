/** The OpenAPI document of both apps (command-api and query-api), as `pnpm openapi` writes it and the specs check it. */
import { makeCommandRoutes } from '@cagnotte/command-api';
import { makeQueryRoutes } from '@cagnotte/query-api';
import { buildOpenApiDocument, type RouteDef, type Services } from '@cagnotte/infra';
import { API_INFO } from '../api';

/** Every route of both apps, in the order the embedded server mounts them. */
export const allRoutes = (services: Services): RouteDef[] => [...makeCommandRoutes({ services }), ...makeQueryRoutes({ services })];

export const buildApiDocument = (services: Services) => buildOpenApiDocument(allRoutes(services), API_INFO);
