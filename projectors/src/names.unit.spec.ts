import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Services } from '@cagnotte/infra';
import { PROJECTION_NAMES, makeProjections } from './index';

const test = suite('projection names');

test('given the projections the service runs, when their names are listed, then PROJECTION_NAMES (the CLI’s and the specs’ list) is exactly them, in order', () => {
  // Building the projections touches none of their adapters: stand-ins are enough to read the names.
  const services = { searchIndex: { name: 'postgres' }, embedder: {}, jobs: {} } as unknown as Pick<Services, 'searchIndex' | 'embedder' | 'jobs'>;
  assert.equal(makeProjections(services).map((p) => p.name), PROJECTION_NAMES);
  assert.ok(PROJECTION_NAMES.includes('public-events'));
});

test.run();
