import type { RelaisDirectoryPort } from '@cagnotte/event-schemas';
import type { Services } from '@cagnotte/infra';

/** The pick-up point directory of this process (part A builds it: the carriers' adapters and the community network). */
export const relaisDirectoryOf = (_services: Services): RelaisDirectoryPort => {
  throw new Error('relais directory: not built yet');
};
