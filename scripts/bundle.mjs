#!/usr/bin/env node
// `pnpm bundle` (the Dockerfile's build stage; docs/deployment.md#the-image): one CommonJS bundle per process kind in
// dist/, so the image runs plain `node` (no transpiler, no dev dependencies, a start in a fraction of a second).
// The workspace packages (@cagnotte/*, TypeScript) are bundled; every other package stays in node_modules, required by
// the absolute path it resolves to from the importing package (pnpm gives each package only its own dependencies, so
// `require('ioredis')` would not resolve from dist/), as scripts/cli.mjs does for the CLI. A `require.resolve(...)`
// left in workspace code (the invoice fonts) resolves from its source file's place, as it does under tsx.
//   node scripts/bundle.mjs            build dist/*.cjs and dist/externals.json
//   node scripts/bundle.mjs --verify   every external the bundles require exists (run after pruning dev dependencies)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'dist');
const externalsFile = join(outDir, 'externals.json');

/** The roles of the image (scripts/docker/role.mjs) and the source each one runs. */
export const ENTRIES = {
  'command-api': 'command-api/src/main.ts',
  'query-api': 'query-api/src/main.ts',
  projectors: 'projectors/src/main.ts',
  embedded: 'scripts/src/start.ts',
  cli: 'scripts/src/cli/main.ts',
};

const verify = () => {
  const externals = JSON.parse(readFileSync(externalsFile, 'utf8'));
  const missing = externals.filter((path) => !existsSync(path));
  if (missing.length > 0) {
    console.error(`bundle: ${missing.length} dependencies the bundles require are not installed (a dev dependency used at run time?):`);
    for (const path of missing) console.error(`  ${relative(root, path)}`);
    process.exit(1);
  }
  console.log(`bundle: the ${externals.length} dependencies the bundles require are installed`);
};

const build = async () => {
  const esbuild = createRequire(import.meta.url)('esbuild');
  const externals = new Set();
  const plugin = {
    name: 'workspace-bundled-dependencies-external',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.resolving || args.path.startsWith('@cagnotte/') || args.path.startsWith('node:')) return undefined;
        // Resolved as `require` (the bundles are CommonJS): a package's "require" export, not its ES module.
        const r = await b.resolve(args.path, { kind: 'require-call', resolveDir: args.resolveDir, pluginData: { resolving: true } });
        if (r.errors.length > 0) return { errors: r.errors };
        if (!r.path.includes('node_modules')) return undefined; // a Node built-in named without `node:`
        externals.add(r.path);
        return { path: r.path, external: true };
      });
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes('node_modules')) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('require.resolve(')) return undefined;
        const from = `require('node:module').createRequire(${JSON.stringify(args.path)}).resolve(`;
        return { contents: source.replaceAll('require.resolve(', from), loader: 'ts' };
      });
    },
  };
  mkdirSync(outDir, { recursive: true });
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.entries(ENTRIES).map(([out, input]) => ({ out, in: input })),
    outdir: outDir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [plugin],
  });
  writeFileSync(externalsFile, JSON.stringify([...externals].sort(), null, 1));
  console.log(`bundle: ${Object.keys(ENTRIES).map((e) => `dist/${e}.cjs`).join(', ')} (${externals.size} external dependencies)`);
};

if (process.argv.includes('--verify')) verify();
else await build();
