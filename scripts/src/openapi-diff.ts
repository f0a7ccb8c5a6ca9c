/**
 * `pnpm openapi:diff [-- --base <file> | --base-ref <git revision>]`: the OpenAPI document the code generates now,
 * compared with the last committed one (`git show HEAD:docs/openapi.json`, or the given file or revision). Prints
 * every breaking change and fails on any; additive changes pass. Committing the regenerated docs/openapi.json is what
 * accepts a breaking change on purpose (the next run compares with it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServices, loadConfigOrExit } from '@cagnotte/infra';
import { buildApiDocument } from './openapi/document';
import { breakingChanges, describePointer, ROOT } from './openapi/breaking';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-diff-'));
  try {
    let basePath = arg('--base');
    if (basePath) basePath = resolve(process.cwd(), basePath);
    else {
      const ref = arg('--base-ref') ?? 'HEAD';
      let committed: string;
      try {
        committed = execFileSync('git', ['show', `${ref}:docs/openapi.json`], { cwd: ROOT, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
      } catch {
        console.log(`openapi:diff: no docs/openapi.json at ${ref}, nothing to compare with`);
        return;
      }
      basePath = join(dir, 'base.json');
      writeFileSync(basePath, committed);
    }
    const services = await createServices({ ...loadConfigOrExit(), LOG_LEVEL: 'silent' }, { migrate: false });
    const revisionPath = join(dir, 'openapi.json');
    try {
      writeFileSync(revisionPath, JSON.stringify(buildApiDocument(services), null, 2));
    } finally {
      await services.close();
    }
    const breaking = await breakingChanges(basePath, revisionPath);
    if (breaking.length === 0) {
      console.log('openapi:diff: no breaking change');
      return;
    }
    for (const b of breaking) console.log(`BREAKING ${describePointer(b.pointer)}: ${b.message} (${b.rule})`);
    console.log(`openapi:diff: ${breaking.length} breaking change(s). If intended, commit the regenerated document (pnpm openapi).`);
    process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 2;
});
