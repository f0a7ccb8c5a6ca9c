import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalJson } from './hash-chain';

/** The definition canonicalJson must keep to the byte: the hashes of every stored event depend on it. */
const reference = (value: unknown): string => {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return JSON.stringify(value.toString());
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : reference(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
};

/** A small seeded generator, so a failure names a case that can be replayed. */
const rng = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const KEYS = ['a', 'B', 'b', '', 'é', 'zz', '10', '9', '__proto_', 'key with space', '\u{1F600}', 'Z'];
const randomValue = (r: () => number, depth: number): unknown => {
  const pick = Math.floor(r() * (depth > 3 ? 7 : 10));
  switch (pick) {
    case 0: return null;
    case 1: return undefined;
    case 2: return r() < 0.5;
    case 3: return [0, -0, 1.5, -2e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY, 123456789012][Math.floor(r() * 8)];
    case 4: return ['', 'x', 'é"\\\n\u0000', '\u2028', 'long '.repeat(20)][Math.floor(r() * 5)];
    case 5: return BigInt(Math.floor(r() * 1e9)) * 1_000_000_007n;
    case 6: return new Date(Math.floor(r() * 1e12));
    case 7:
    case 8: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(r() * 6); i > 0; i--) o[KEYS[Math.floor(r() * KEYS.length)]!] = randomValue(r, depth + 1);
      return o;
    }
    default: return Array.from({ length: Math.floor(r() * 5) }, () => randomValue(r, depth + 1));
  }
};

test('canonicalJson gives the same bytes as its reference definition on 5,000 generated values', () => {
  const r = rng(20261122);
  for (let i = 0; i < 5000; i++) {
    const v = randomValue(r, 0);
    assert.is(canonicalJson(v), reference(v), `case ${i}`);
  }
});

test('canonicalJson sorts keys at every depth and leaves out undefined members', () => {
  assert.is(canonicalJson({ b: 1, a: { d: [undefined, 2], c: undefined }, A: 'x' }), '{"A":"x","a":{"d":[null,2]},"b":1}');
  assert.is(canonicalJson(12n), '"12"');
  assert.is(canonicalJson(undefined), 'null');
});

test.run();
