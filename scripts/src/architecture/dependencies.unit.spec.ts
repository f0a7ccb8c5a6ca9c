import { readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * Dependencies are declared where they are used: every package a workspace package imports is in its own
 * package.json (not found by luck through the hoisted root), and nothing declared there goes unused.
 * Test and build tooling (uvu, tsx, typescript, eslint, @types/*) is the root's, shared by all.
 */
const test = suite('architecture: dependencies declared where used');
const root = resolve(__dirname, '../../..');
const PACKAGES = ['event-schemas', 'domain', 'infra', 'infra/sandbox-ledger', 'read-models', 'command-api', 'query-api', 'projectors', 'scripts'];
const SOURCE_DIRS: Record<string, string[]> = { scripts: ['src', 'e2e', 'bench', 'search-fixtures'] };

const files = (dir: string): string[] => {
  let out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (name === 'node_modules') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out = out.concat(files(full));
    else if (/\.(ts|mts|mjs|js)$/.test(name)) out.push(full);
  }
  return out;
};

/** Bare specifiers imported (statically, dynamically, or re-exported) by one source file, as package names. */
const importsOf = (source: string): string[] => {
  const found = new Set<string>();
  const re = /(?:^|[\s;])(?:import|export)\s[^'"`]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]|require(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const m of source.matchAll(re)) {
    const spec = m[1] ?? m[2] ?? m[3] ?? m[4]!;
    if (spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]!)) continue;
    const parts = spec.split('/');
    found.add(spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  return [...found];
};

const manifest = (dir: string) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
const rootTools = new Set(Object.keys(manifest('.').devDependencies ?? {}));

for (const pkg of PACKAGES) {
  test(`${pkg}: every import declared, every declaration imported`, () => {
    const m = manifest(pkg);
    const declared = new Set([...Object.keys(m.dependencies ?? {}), ...Object.keys(m.devDependencies ?? {})]);
    const used = new Map<string, string>();
    for (const dir of SOURCE_DIRS[pkg] ?? ['src']) {
      for (const file of files(join(root, pkg, dir))) {
        for (const name of importsOf(readFileSync(file, 'utf8'))) if (!used.has(name)) used.set(name, file.slice(root.length + 1));
      }
    }
    const undeclared = [...used].filter(([name]) => name !== m.name && !declared.has(name) && !rootTools.has(name) && !rootTools.has(`@types/${name}`)).map(([n, f]) => `${n} (${f})`);
    const unused = [...declared].filter((name) => !used.has(name) && !name.startsWith('@types/'));
    assert.equal(undeclared, [], `${pkg} imports packages its package.json does not declare`);
    assert.equal(unused, [], `${pkg} declares packages it never imports`);
  });
}

test('the import scanner sees static, type-only, dynamic and re-exported imports and resolved package files, and skips builtins and relative paths', () => {
  const src = [
    "import { a } from 'alpha';",
    "import type { B } from '@scope/beta/deep';",
    "export * from 'gamma';",
    "const d = await imp" + "ort('delta');",
    "import 'epsilon';",
    "import { x } from './local';",
    "import { readFileSync } from 'node:fs';",
    "import path from 'path';",
    "const z = requ" + "ire.resolve('zeta/package.json');",
  ].join('\n');
  assert.equal(importsOf(src).sort(), ['@scope/beta', 'alpha', 'delta', 'epsilon', 'gamma', 'zeta']);
});

test.run();
