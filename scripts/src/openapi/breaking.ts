/**
 * Breaking changes between two OpenAPI documents, as Redocly's diff rates them (`redocly diff`, rules
 * diff-recommended as redocly.yaml tunes them): every change rated `major`. The rules that rate one major are listed
 * in docs/openapi.md; breaking.int.spec.ts checks each.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../../..');
const REDOCLY = resolve(ROOT, 'node_modules/.bin/redocly');

export interface BreakingChange {
  /** The diff rule: `operation-removed`, `required-properties-added`, … */
  rule: string;
  /** Where, as a JSON pointer into the document (the base's for a removal, the revision's otherwise). */
  pointer: string;
  message: string;
}

interface DiffReport {
  changes: Array<{ path: string; verdicts?: Array<{ ruleId: string; impact: string; message: string; location?: { pointer?: string } }> }>;
}

/** The major changes from `base` to `revision` (two files). Throws when Redocly cannot compare them. */
export const breakingChanges = (basePath: string, revisionPath: string, config = resolve(ROOT, 'redocly.yaml')): Promise<BreakingChange[]> =>
  new Promise((done, fail) => {
    execFile(
      REDOCLY,
      ['diff', basePath, revisionPath, '--config', config, '--format', 'json', '--fail-on', 'none', '--lint-config', 'off'],
      { cwd: ROOT, maxBuffer: 512 * 1024 * 1024, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        if (error) return fail(new Error(`redocly diff failed: ${stderr || error.message}`));
        let report: DiffReport;
        try {
          report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as DiffReport;
        } catch {
          return fail(new Error(`redocly diff answered no JSON report: ${stdout.slice(0, 500)} ${stderr.slice(0, 500)}`));
        }
        done(
          report.changes.flatMap((change) =>
            (change.verdicts ?? []).filter((v) => v.impact === 'major').map((v) => ({ rule: v.ruleId, pointer: v.location?.pointer ?? change.path, message: v.message })),
          ),
        );
      },
    );
  });

/** `#/paths/~1api~1pools/get/responses/404` → `GET /api/pools responses/404`. */
export const describePointer = (pointer: string): string => {
  const parts = pointer.replace(/^#\//, '').split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts[0] !== 'paths') return parts.join('/');
  const [, path, method, ...rest] = parts;
  return [method ? `${method.toUpperCase()} ${path}` : path, rest.join('/')].filter(Boolean).join(' ');
};
