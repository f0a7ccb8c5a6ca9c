import type { RelaisDirectoryPort } from '@cagnotte/event-schemas';
import { createRelaisDirectory, type Services } from '@cagnotte/infra';
import { CommunityHostsAdapter } from '@cagnotte/read-models';

const built = new WeakMap<Services, RelaisDirectoryPort>();

/** The pick-up point directory of this process: the configured carriers, the sandbox carrier and the community network, built once per Services. */
export const relaisDirectoryOf = (services: Services): RelaisDirectoryPort => {
  let directory = built.get(services);
  if (!directory) {
    directory = createRelaisDirectory(services, [new CommunityHostsAdapter(services.knex)]);
    built.set(services, directory);
  }
  return directory;
};
