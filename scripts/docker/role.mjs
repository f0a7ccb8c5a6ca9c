#!/usr/bin/env node
// The image's entry point (Dockerfile): one image, one role per container, named by the first argument or ROLE.
//   command-api | query-api | projectors   the split deployment (docs/deployment.md)
//   embedded                              everything in one process (what `pnpm start` runs)
//   cli <verb> …                          the operator CLI (`docker compose run --rm projectors cli projections status`)
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROLES = ['command-api', 'query-api', 'projectors', 'embedded', 'cli'];
const fromArgs = ROLES.includes(process.argv[2] ?? '');
const role = fromArgs ? process.argv[2] : process.env.ROLE;
if (!role || !ROLES.includes(role)) {
  console.error(`role: name one of ${ROLES.join(', ')} (the command's first word, or ROLE); got ${JSON.stringify(role ?? null)}`);
  process.exit(2);
}
// The role's own code sees its arguments where it expects them (the CLI reads process.argv.slice(2)).
if (fromArgs) process.argv.splice(2, 1);
// The bundles are CommonJS (scripts/bundle.mjs): loaded with require, so they run as they were built.
createRequire(import.meta.url)(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', `${role}.cjs`));
