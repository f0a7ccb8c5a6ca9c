import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import { searchIndexContract } from './contract';
import { HashingEmbedder } from './embeddings';

const url = process.env.OPENSEARCH_URL;
if (url) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { OpenSearchSearchIndex } = require('./opensearch') as typeof import('./opensearch');
  const embedder = new HashingEmbedder();
  searchIndexContract(
    'opensearch',
    async () => {
      // A throwaway index and pipelines per run, deleted by reset() once the suite is done.
      const index = OpenSearchSearchIndex.fromUrl(url, { indexPrefix: `cagnotte-test-${randomUUID().slice(0, 8)}-` });
      await index.ensureIndex();
      return Object.assign(index, {
        reset: async () => {
          await index.dropIndex();
          await index.close();
        },
      });
    },
    (text) => embedder.embedOne(text),
  );
} else {
  console.log('\n  SKIPPED: OpenSearch search contract suite (OPENSEARCH_URL is not set; no OpenSearch server runs here)\n');
  const skipped = suite('search index contract: opensearch (skipped, OPENSEARCH_URL not set)');
  skipped.skip('OpenSearch contract suite', () => undefined);
  skipped.run();
}
