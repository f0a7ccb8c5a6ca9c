import { suite } from 'uvu';
import { eventStoreContract } from './contract';

const url = process.env.EVENTSTORE_URL;
if (url) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { EventStoreDbEventStore } = require('./eventstoredb') as typeof import('./eventstoredb');
  eventStoreContract('eventstoredb', async () => EventStoreDbEventStore.fromConnectionString(url));
} else {
  console.log('\n  SKIPPED: EventStoreDB event store contract suite (EVENTSTORE_URL is not set; no EventStoreDB server runs here)\n');
  const skipped = suite('event store contract: eventstoredb (skipped, EVENTSTORE_URL not set)');
  skipped.skip('EventStoreDB contract suite', () => undefined);
  skipped.run();
}
