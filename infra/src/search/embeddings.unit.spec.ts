import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EMBEDDING_DIMENSIONS } from './port';
import { HashingEmbedder, HttpEmbedder, cosine, createEmbedder, fromBytes, normalizeText, toBytes } from './embeddings';

const embedder = new HashingEmbedder();
const one = async (text: string) => (await embedder.embed([text]))[0]!;
const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

const normalize = suite('normalizeText');

normalize('strips accents, case and punctuation, and spells out ligatures', () => {
  assert.is(normalizeText('Épicerie Fine'), 'epicerie fine');
  assert.is(normalizeText('œufs'), 'oeufs');
  assert.is(normalizeText('Œufs & crème fraîche!'), 'oeufs creme fraiche');
  assert.is(normalizeText('Ex æquo, Straße'), 'ex aequo strasse');
  assert.is(normalizeText("  l'Été   -- à Paris\n(75011) "), 'l ete a paris 75011');
  assert.is(normalizeText('ﬁlet İstanbul'), 'filet istanbul');
  assert.is(normalizeText('?!…'), '');
});

normalize.run();

const hashing = suite('HashingEmbedder');

hashing('384 dimensions, unit norm', async () => {
  assert.is(embedder.name, 'hashing-384');
  assert.is(embedder.dimensions, EMBEDDING_DIMENSIONS);
  const vs = await embedder.embed(['Boulangerie du coin', 'fromage', 'Organic vegetables box delivered weekly']);
  assert.is(vs.length, 3);
  for (const v of vs) {
    assert.instance(v, Float32Array);
    assert.is(v.length, 384);
    assert.ok(Math.abs(norm(v) - 1) < 1e-5, `norm ${norm(v)}`);
  }
});

hashing('deterministic: the same text gives the same bytes, across instances', async () => {
  const text = 'Panier de légumes bio, 5 kg';
  const a = await one(text);
  const b = (await new HashingEmbedder().embed([text]))[0]!;
  assert.ok(toBytes(a).equals(toBytes(b)));
});

hashing('insensitive to accents and case', async () => {
  assert.ok(cosine(await one('Épicerie'), await one('epicerie')) > 0.9999);
  assert.ok(cosine(await one('CRÈME Fraîche'), await one('creme fraiche')) > 0.9999);
});

hashing('a typo and a prefix stay much closer than an unrelated word', async () => {
  const target = await one('boulangerie');
  const typo = cosine(await one('boulangrie'), target);
  const prefix = cosine(await one('boulan'), target);
  const unrelated = cosine(await one('fromage'), target);
  assert.ok(typo > 0.4, `typo ${typo}`);
  assert.ok(prefix > 0.3, `prefix ${prefix}`);
  assert.ok(Math.abs(unrelated) < 0.15, `unrelated ${unrelated}`);
  assert.ok(typo - unrelated > 0.3 && prefix - unrelated > 0.2);
});

hashing('unrelated French and English texts are far apart', async () => {
  const fr = await one('Fromagerie artisanale au lait cru');
  const en = await one('Wireless headphones with noise cancelling');
  assert.ok(Math.abs(cosine(fr, en)) < 0.15, `${cosine(fr, en)}`);
});

hashing('a text without letters or digits is the zero vector, at cosine 0 with anything', async () => {
  for (const text of ['', '   ', '!?—']) {
    const v = await one(text);
    assert.is(v.length, 384);
    assert.ok(v.every((x) => x === 0));
    assert.is(cosine(v, await one('boulangerie')), 0);
    assert.is(cosine(v, v), 0);
  }
});

hashing('createEmbedder picks hashing without a URL and HTTP with one', () => {
  assert.instance(createEmbedder({}), HashingEmbedder);
  assert.instance(createEmbedder({ url: 'http://127.0.0.1:9/v1/embeddings', model: 'm' }), HttpEmbedder);
});

hashing.run();

const bytes = suite('toBytes / fromBytes');

bytes('round-trip is exact, little-endian float32', async () => {
  const v = await one('Cagnotte groupée de café');
  const b = toBytes(v);
  assert.is(b.length, 384 * 4);
  assert.is(b.readFloatLE(4), v[1]);
  assert.equal(Array.from(fromBytes(b)), Array.from(v));
  assert.equal(Array.from(fromBytes(new Uint8Array(b))), Array.from(v));
});

bytes('reads a Buffer slice at an odd offset', () => {
  const v = Float32Array.from([1.5, -2.25, 3.1415927, 0, -0, 1e-30]);
  const padded = Buffer.alloc(1 + v.length * 4 + 2, 0xff);
  toBytes(v).copy(padded, 1);
  const slice = padded.subarray(1, 1 + v.length * 4);
  assert.is(slice.byteOffset % 4 !== 0, true);
  const back = fromBytes(slice);
  assert.equal(Array.from(back), Array.from(v));
  assert.ok(Object.is(back[4], -0));
  // A copy, not a view: the source buffer can be reused by its owner.
  padded.fill(0);
  assert.is(back[0], 1.5);
});

bytes('refuses a length that is not a multiple of 4', () => {
  assert.throws(() => fromBytes(Buffer.alloc(7)), /multiple of 4/);
});

bytes.run();
