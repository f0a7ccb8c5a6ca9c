import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkCompose, checkDeploy, checkDockerfile, checkDockerignore, readDeployFiles, unpinnedImage } from './deploy-check';

const test = suite('deploy check (Dockerfile, compose.yaml, .dockerignore)');
const root = join(__dirname, '..', '..');
const real = readDeployFiles(root);

/** The real file with one exact piece replaced: the spec fails loudly if the piece is no longer there. */
const broken = (text: string, from: string | RegExp, to: string): string => {
  const out = text.replace(from, to);
  assert.is.not(out, text, `the real file no longer contains ${String(from)}`);
  return out;
};
const dockerfileProblems = (from: string | RegExp, to: string) => checkDockerfile(broken(real.dockerfile, from, to));
const composeProblems = (from: string | RegExp, to: string) => checkCompose(broken(real.compose, from, to), real.composeSchema);
const mentions = (problems: string[], fragment: string) =>
  assert.ok(problems.some((p) => p.includes(fragment)), `expected a problem mentioning "${fragment}", got:\n${problems.join('\n') || '(none)'}`);

test('the repository\'s Dockerfile, compose.yaml and .dockerignore pass', () => {
  assert.equal(checkDeploy(real), []);
});

test('image references: a version tag or a digest passes; none, latest, a word or a variable does not', () => {
  assert.is(unpinnedImage('node:22.23.3-bookworm-slim'), null);
  assert.is(unpinnedImage('docker.kurrent.io/kurrent-latest/kurrentdb:26.1.1'), null);
  assert.is(unpinnedImage(`postgres@sha256:${'a'.repeat(64)}`), null);
  assert.match(unpinnedImage('node')!, 'no tag');
  assert.match(unpinnedImage('localhost:5000/node')!, 'no tag');
  assert.match(unpinnedImage('node:latest')!, 'latest');
  assert.match(unpinnedImage('node:lts-slim')!, 'names no version');
  assert.match(unpinnedImage('${NODE_IMAGE}')!, 'variable');
});

test('Dockerfile: a base image at latest, or untagged, is refused', () => {
  mentions(dockerfileProblems('FROM node:22.23.3-bookworm-slim AS runtime', 'FROM node:latest AS runtime'), 'latest');
  mentions(dockerfileProblems('FROM node:22.23.3-bookworm-slim AS base', 'FROM node AS base'), 'no tag');
});

test('Dockerfile: a later stage may start FROM an earlier one without a tag', () => {
  assert.equal(checkDockerfile(real.dockerfile).filter((p) => p.includes('FROM base')), []);
});

test('Dockerfile: a final stage without USER, or as root, is refused', () => {
  mentions(dockerfileProblems(/^USER 1000:1000$/m, ''), 'no USER');
  mentions(dockerfileProblems(/^USER 1000:1000$/m, 'USER root'), 'runs as root');
  mentions(dockerfileProblems(/^USER 1000:1000$/m, 'USER 0:0'), 'runs as root');
});

test('Dockerfile: no HEALTHCHECK, or HEALTHCHECK NONE, is refused', () => {
  mentions(dockerfileProblems(/^HEALTHCHECK[^\n]*\\\n[^\n]*\n/m, ''), 'no HEALTHCHECK');
  mentions(dockerfileProblems(/^HEALTHCHECK[^\n]*\\\n[^\n]*\n/m, 'HEALTHCHECK NONE\n'), 'HEALTHCHECK NONE');
});

test('Dockerfile: a pnpm install without --frozen-lockfile is refused, even on a continuation line', () => {
  mentions(dockerfileProblems('pnpm install --prod --frozen-lockfile', 'pnpm install --prod'), 'without --frozen-lockfile');
  mentions(dockerfileProblems('pnpm install --prod --frozen-lockfile', 'pnpm install --prod && npm install'), 'npm install');
});

test('Dockerfile: a single stage is refused', () => {
  const single = 'FROM node:22.23.3-bookworm-slim\nWORKDIR /app\nRUN pnpm install --frozen-lockfile\nUSER 1000\nHEALTHCHECK CMD ["node", "-e", "0"]\n';
  mentions(checkDockerfile(single), 'not multi-stage');
});

test('Dockerfile: what dockerfile-utils finds (an unknown instruction, a bad EXPOSE) is a problem with its line', () => {
  mentions(dockerfileProblems('EXPOSE 3000', 'EXPOSE http'), 'Dockerfile:');
  const unknown = dockerfileProblems('WORKDIR /app\nCOPY --from=prod-deps', 'WORKDIR /app\nCOPYY --from=prod-deps');
  assert.ok(unknown.some((p) => /^Dockerfile:\d+: /.test(p)), unknown.join('\n'));
});

test('compose.yaml: what the Compose Specification refuses is reported (an unknown key, a wrong type, a bad condition)', () => {
  mentions(composeProblems('  stop_grace_period: 30s\n', '  stop_grace_period: 30s\n  restart_policy_typo: always\n'), 'restart_policy_typo');
  mentions(composeProblems(/^ {6}retries: 30$/m, '      retries: [30]'), 'compose.yaml: /services/');
  mentions(composeProblems('postgres: { condition: service_healthy }', 'postgres: { condition: when_ready }'), 'compose.yaml');
});

test('compose.yaml: a service without a health check is refused (the roles built here use the image\'s)', () => {
  mentions(composeProblems(/ {4}healthcheck:\n {6}test: \["CMD-SHELL", "pg_isready[^\n]*\n( {6}[^\n]*\n)*/, ''), 'service postgres has no healthcheck');
  mentions(composeProblems(/ {4}healthcheck:\n {6}test: \["CMD-SHELL", "REDISCLI_AUTH[^\n]*\n( {6}[^\n]*\n)*/, '    healthcheck: { disable: true }\n'), 'disables its healthcheck');
});

test('compose.yaml: depending on a service that is merely started is refused', () => {
  mentions(composeProblems('redis: { condition: service_healthy }', 'redis: { condition: service_started }'), 'not service_healthy');
  mentions(composeProblems(/ {6}command-api: \{ condition: service_healthy \}\n {6}query-api: \{ condition: service_healthy \}/, '      - command-api\n      - query-api'), 'without condition');
});

test('compose.yaml: an unpinned image is refused', () => {
  mentions(composeProblems(/image: redis:[^\n]+/, 'image: redis'), 'no tag');
  mentions(composeProblems(/image: kurrentplatform\/kurrentdb:[^\n]+/, 'image: kurrentplatform/kurrentdb:latest'), 'latest');
});

test('compose.yaml: a secret written in the file is refused', () => {
  mentions(composeProblems(/JWT_SECRET: \$\{JWT_SECRET[^\n]+/, 'JWT_SECRET: a-literal-secret-of-more-than-32-characters'), 'JWT_SECRET is written in the file');
  mentions(composeProblems(/REDIS_URL: [^\n]+/, 'REDIS_URL: redis://:hunter2@redis:6379'), 'holds a password');
});

test('compose.yaml: the three roles, each naming its ROLE, from the one image', () => {
  mentions(composeProblems(/ {2}projectors:\n {4}<<: \*app\n {4}environment:\n {6}<<: \*app-env\n {6}ROLE: projectors\n/, ''), 'no projectors service');
  mentions(composeProblems('ROLE: query-api', 'ROLE: projectors'), 'does not set ROLE: query-api');
  mentions(composeProblems(/( {2}query-api:\n {4}<<: \*app\n)/, '$1    image: cagnotte:other\n'), 'different images');
});

test('compose.yaml: not YAML at all is one clear problem', () => {
  mentions(checkCompose('services: [unclosed', real.composeSchema), 'not YAML');
});

test('.dockerignore: node_modules and .env stay out of the build context', () => {
  mentions(checkDockerignore(broken(real.dockerignore, /^\*\*\/node_modules\n/m, '')), 'node_modules');
  mentions(checkDockerignore(broken(real.dockerignore, /^\.env\n\*\.env\n/m, '')), '.env');
});

test('pnpm deploy:check: exit 0 on the repository, 1 naming the problem on a broken copy', () => {
  const tsx = require.resolve('tsx/cli');
  const script = join(__dirname, 'deploy-check.ts');
  const ok = spawnSync(process.execPath, [tsx, script], { encoding: 'utf8', timeout: 120_000 });
  assert.is(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, 'pass');
  const dir = mkdtempSync(join(tmpdir(), 'deploy-check-'));
  try {
    mkdirSync(join(dir, 'infra', 'deploy'), { recursive: true });
    cpSync(join(root, 'infra', 'deploy', 'compose-spec.json'), join(dir, 'infra', 'deploy', 'compose-spec.json'));
    writeFileSync(join(dir, 'compose.yaml'), real.compose);
    writeFileSync(join(dir, '.dockerignore'), real.dockerignore);
    writeFileSync(join(dir, 'Dockerfile'), broken(real.dockerfile, /^USER 1000:1000$/m, ''));
    const bad = spawnSync(process.execPath, [tsx, script, '--root', dir], { encoding: 'utf8', timeout: 120_000 });
    assert.is(bad.status, 1, bad.stdout);
    assert.match(bad.stderr, 'the final stage sets no USER');
    assert.match(bad.stderr, 'deploy check: 1 problem');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
