#!/usr/bin/env node
// `pnpm cli …` (README.md#operator-cli): the operator CLI, run compiled. Transpiling the workspace on every call took
// seconds (and a minute on a busy machine); a script calling the CLI in a loop paid it each time. This launcher runs
// scripts/dist/cli.cjs, one CommonJS bundle of scripts/src/cli/main.ts and the workspace code it imports (the
// dependencies stay in node_modules), and rebuilds it with esbuild first when it is missing or stale: a source it was
// built from changed since (their list and the build time are in scripts/dist/cli.inputs.json), the dependencies were
// installed again, or the checkout moved.
// A fresh clone needs no extra step: the first call builds. Should the build fail, the CLI runs through tsx instead.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'scripts', 'src', 'cli', 'main.ts');
const outDir = join(root, 'scripts', 'dist');
const bundle = join(outDir, 'cli.cjs');
const manifest = join(outDir, 'cli.inputs.json');
const require = createRequire(import.meta.url);
/** An install or an upgrade moves the dependencies the bundle requires by path; a change here changes how it is built. */
const INSTALLS = ['pnpm-lock.yaml', 'node_modules/.modules.yaml', 'scripts/cli.mjs'];

/** True when the bundle is missing, was built in another checkout, or any of its sources changed after its build began. */
const stale = () => {
  try {
    const built = JSON.parse(readFileSync(manifest, 'utf8'));
    if (built.root !== root || built.node !== process.versions.node) return true;
    statSync(bundle);
    const changed = (file, ifMissing) => {
      try {
        return statSync(join(root, file)).mtimeMs > built.startedAt;
      } catch {
        return ifMissing;
      }
    };
    return built.inputs.some((file) => changed(file, true)) || INSTALLS.some((file) => changed(file, false));
  } catch {
    return true;
  }
};

/**
 * Bundles the workspace packages (@cagnotte/*) and leaves every other package external, required by its resolved
 * absolute path: pnpm gives each package only its own dependencies, so `require('ioredis')` would not resolve from
 * scripts/dist. Written under temporary names and renamed, so two calls building at once never run half a file.
 */
const build = async () => {
  const esbuild = require('esbuild');
  const startedAt = Date.now();
  const external = {
    name: 'dependencies-external',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.resolving || args.path.startsWith('@cagnotte/')) return undefined;
        const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: { resolving: true } });
        if (r.errors.length > 0) return { errors: r.errors };
        return { path: r.path, external: true };
      });
    },
  };
  mkdirSync(outDir, { recursive: true });
  const tmp = `${bundle}.${process.pid}.tmp`;
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: `node${process.versions.node.split('.')[0]}`,
      outfile: tmp,
      metafile: true,
      logLevel: 'error',
      plugins: [external],
    });
    const inputs = Object.keys(result.metafile.inputs);
    renameSync(tmp, bundle);
    writeFileSync(`${manifest}.${process.pid}.tmp`, JSON.stringify({ root, node: process.versions.node, startedAt, inputs }));
    renameSync(`${manifest}.${process.pid}.tmp`, manifest);
  } finally {
    rmSync(tmp, { force: true });
  }
};

if (stale()) {
  try {
    await build();
  } catch (e) {
    console.error(`cli: could not build ${relative(root, bundle)} (${e instanceof Error ? e.message : e}); running through tsx`);
    const tsx = spawnSync(process.execPath, [require.resolve('tsx/cli'), entry, ...process.argv.slice(2)], { stdio: 'inherit' });
    process.exit(tsx.status ?? 1);
  }
}
require(bundle);
