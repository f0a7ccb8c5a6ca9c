import type { RelaisDirectoryPort } from '@cagnotte/event-schemas';
import { relaisDirectoryOnce, type Services } from '@cagnotte/infra';
import { CommunityHostsAdapter } from '@cagnotte/read-models';

/** The pick-up point directory of this process: the configured carriers, the sandbox carrier and the community network. */
export const relaisDirectoryOf = (services: Services): RelaisDirectoryPort => relaisDirectoryOnce(services, () => [new CommunityHostsAdapter(services.knex)]);
