import { searchIndexContract } from './contract';
import { HashingEmbedder } from './embeddings';
import { PostgresSearchIndex } from './postgres';
import { testKnex, testPgPool } from '../testing/resources';

const embedder = new HashingEmbedder();

searchIndexContract('postgres', async () => new PostgresSearchIndex(testKnex(), testPgPool()), (text) => embedder.embedOne(text));
