import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EmbeddingServiceError, HttpEmbedder } from './embeddings';

interface Received {
  input: string[];
  model?: string;
  authorization?: string;
}

type Answer = (body: Received, res: ServerResponse) => void;

/** A fake embedding service: each vector is [length of the text, 1, 1, …], not normalised on purpose. */
const vectorFor = (text: string, dims = 384) => Array.from({ length: dims }, (_, i) => (i === 0 ? text.length : 1));

const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const startService = async (answer: Answer) => {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = { ...(JSON.parse(raw) as Received), authorization: req.headers.authorization };
      received.push(body);
      answer(body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/embeddings`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url, received, close };
};

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const texts = (n: number) => Array.from({ length: n }, (_, i) => `produit ${'x'.repeat(i)}`);

const test = suite('HttpEmbedder against a local service');

test('OpenAI-compatible { data }: batches of 64, order kept, vectors normalised', async () => {
  const service = await startService(({ input }, res) =>
    // Items come back reversed, with their index, to prove the embedder orders by index.
    json(res, { object: 'list', data: input.map((t, index) => ({ object: 'embedding', index, embedding: vectorFor(t) })).reverse() }),
  );
  try {
    const embedder = new HttpEmbedder({ url: service.url, model: 'multilingual-e5-small', headers: { authorization: 'Bearer test' } });
    assert.is(embedder.name, 'http');
    assert.is(embedder.dimensions, 384);
    const input = texts(130);
    const vectors = await embedder.embed(input);
    assert.equal(service.received.map((r) => r.input.length), [64, 64, 2]);
    assert.equal(service.received.flatMap((r) => r.input), input);
    assert.ok(service.received.every((r) => r.model === 'multilingual-e5-small' && r.authorization === 'Bearer test'));
    assert.is(vectors.length, 130);
    vectors.forEach((v, i) => {
      assert.instance(v, Float32Array);
      assert.is(v.length, 384);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5);
      const expected = vectorFor(input[i]!);
      const scale = Math.sqrt(expected.reduce((s, x) => s + x * x, 0));
      assert.ok(Math.abs(v[0]! - expected[0]! / scale) < 1e-6, `vector ${i} is out of order`);
    });
  } finally {
    await service.close();
  }
});

test('{ embeddings } shape, and no model sent when none is configured', async () => {
  const service = await startService(({ input }, res) => json(res, { embeddings: input.map((t) => vectorFor(t)) }));
  try {
    const vectors = await new HttpEmbedder({ url: service.url }).embed(['pain', 'fromage']);
    assert.is(service.received.length, 1);
    assert.is(service.received[0]!.model, undefined);
    assert.is(vectors.length, 2);
    assert.ok(vectors.every((v) => v.length === 384 && Math.abs(norm(v) - 1) < 1e-5));
    assert.ok(vectors[0]![0]! < vectors[1]![0]!);
  } finally {
    await service.close();
  }
});

test('a vector of the wrong dimension is refused, naming the dimension found', async () => {
  const service = await startService(({ input }, res) => json(res, { embeddings: input.map((t) => vectorFor(t, 768)) }));
  try {
    const error = await new HttpEmbedder({ url: service.url }).embed(['pain']).then(
      () => assert.unreachable('should have thrown'),
      (e: unknown) => e,
    );
    assert.instance(error, EmbeddingServiceError);
    assert.match((error as Error).message, /returned 768 dimensions, expected 384/);
  } finally {
    await service.close();
  }
});

test('a slow service times out with a clear error', async () => {
  const service = await startService((_body, res) => setTimeout(() => json(res, { embeddings: [] }), 2000).unref());
  try {
    const started = Date.now();
    const error = await new HttpEmbedder({ url: service.url, timeoutMs: 150 }).embed(['pain']).then(
      () => assert.unreachable('should have thrown'),
      (e: unknown) => e,
    );
    assert.instance(error, EmbeddingServiceError);
    assert.match((error as Error).message, /did not answer within 150 ms/);
    assert.ok(Date.now() - started < 1500);
  } finally {
    await service.close();
  }
});

test('an HTTP error status is reported without leaking the URL path or query', async () => {
  const service = await startService((_body, res) => {
    res.writeHead(503);
    res.end();
  });
  try {
    const url = `${service.url}?api_key=secret`;
    await new HttpEmbedder({ url }).embed(['pain']).then(
      () => assert.unreachable('should have thrown'),
      (e: unknown) => {
        assert.match((e as Error).message, /answered HTTP 503/);
        assert.not.match((e as Error).message, /secret/);
      },
    );
  } finally {
    await service.close();
  }
});

test.run();
