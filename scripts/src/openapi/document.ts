/** The OpenAPI document of both apps (command-api and query-api), as `pnpm openapi` writes it and the specs check it. */
import { makeCommandRoutes } from '@cagnotte/command-api';
import { makeQueryRoutes } from '@cagnotte/query-api';
import { buildOpenApiDocument, probeRoutes, type RouteDef, type Services } from '@cagnotte/infra';
import { API_INFO } from '../api';

/** Every route of both apps, in the order the embedded server mounts them. */
export const allRoutes = (services: Services): RouteDef[] => [...makeCommandRoutes({ services }), ...makeQueryRoutes({ services })];

/** As every server serves it: the probes (/livez, /readyz) first, then the routes. */
export const buildApiDocument = (services: Services) => buildOpenApiDocument([...probeRoutes(services, []), ...allRoutes(services)], API_INFO);
