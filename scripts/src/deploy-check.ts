/**
 * `pnpm deploy:check [-- --root <dir>]`: what CI can prove about the deployment files without Docker (none runs on
 * these machines; docs/deployment.md#what-was-not-run).
 * - compose.yaml is valid against the Compose Specification's JSON schema (vendored: infra/deploy/compose-spec.json),
 *   every service has a health check, every dependency waits for `service_healthy`, images are pinned, the three
 *   roles run the one image, and no secret is written in the file (they come from .env, never committed);
 * - the Dockerfile passes dockerfile-utils' linter (the one behind VS Code's Docker support; hadolint is a Haskell
 *   binary, not on npm) and the rules that matter here: multi-stage, pinned base images (never `latest`), installs
 *   from the lockfile (`--frozen-lockfile`), a non-root USER and a HEALTHCHECK in the final stage;
 * - .dockerignore keeps node_modules and env files out of the build context.
 * Exit 0 when all pass, 1 with one line per problem.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { validate as lintDockerfile } from 'dockerfile-utils';
import { parse as parseYaml } from 'yaml';

/** The Compose Specification's schema, from github.com/compose-spec/compose-spec schema/compose-spec.json at this commit. */
export const COMPOSE_SPEC_SOURCE = 'compose-spec/compose-spec@a08f8d51631b7127ddac3d2c65537db429d0f1d0 schema/compose-spec.json';
/** The roles of the one image (scripts/docker/role.mjs) that compose.yaml runs as services of the same names. */
export const ROLES = ['command-api', 'query-api', 'projectors'] as const;

export interface DeployFiles {
  dockerfile: string;
  compose: string;
  dockerignore: string;
  composeSchema: object;
}

export const readDeployFiles = (root: string): DeployFiles => ({
  dockerfile: readFileSync(join(root, 'Dockerfile'), 'utf8'),
  compose: readFileSync(join(root, 'compose.yaml'), 'utf8'),
  dockerignore: readFileSync(join(root, '.dockerignore'), 'utf8'),
  composeSchema: JSON.parse(readFileSync(join(root, 'infra', 'deploy', 'compose-spec.json'), 'utf8')) as object,
});

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** The Dockerfile's instructions, continuation lines joined, comments and blank lines dropped. */
const instructionsOf = (text: string): Instruction[] => {
  const out: Instruction[] = [];
  let pending: { text: string; line: number } | null = null;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) return;
    if (pending && line.startsWith('#')) return;
    const joined: { text: string; line: number } = pending ? { text: `${pending.text} ${line}`, line: pending.line } : { text: line, line: i + 1 };
    if (line.endsWith('\\')) {
      pending = { text: joined.text.slice(0, -1).trimEnd(), line: joined.line };
      return;
    }
    pending = null;
    const m = /^(\S+)\s*(.*)$/.exec(joined.text);
    if (m) out.push({ keyword: m[1]!.toUpperCase(), args: m[2]!, line: joined.line });
  });
  return out;
};

/** A problem with an image reference, or null when it names a version (a tag with a digit, not `latest`, or a digest). */
export const unpinnedImage = (image: string): string | null => {
  if (image.includes('$')) return `${image}: an image named through a variable cannot be checked; name it literally`;
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return null;
  const lastSegment = image.split('/').pop()!;
  const tag = lastSegment.includes(':') ? lastSegment.split(':').pop()! : null;
  if (tag === null) return `${image}: no tag (that is \`latest\`); pin a version`;
  if (tag === 'latest') return `${image}: \`latest\` is not a version; pin one`;
  if (!/\d/.test(tag)) return `${image}: the tag \`${tag}\` names no version; pin one`;
  return null;
};

/** The Language Server Protocol's severities that dockerfile-utils reports (1 error, 2 warning; 3 and 4 are hints). */
const LSP_ERROR = 1;
const LSP_WARNING = 2;

export const checkDockerfile = (text: string): string[] => {
  const problems: string[] = [];
  for (const d of lintDockerfile(text)) {
    if (d.severity === LSP_ERROR || d.severity === LSP_WARNING) {
      problems.push(`Dockerfile:${d.range.start.line + 1}: ${d.message}`);
    }
  }
  const instructions = instructionsOf(text);
  const stages: Instruction[][] = [];
  const stageNames = new Set<string>();
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const words = ins.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      const image = words[0] ?? '';
      if (!stageNames.has(image.toLowerCase())) {
        const problem = unpinnedImage(image);
        if (problem) problems.push(`Dockerfile:${ins.line}: FROM ${problem}`);
      }
      if (words[1]?.toUpperCase() === 'AS' && words[2]) stageNames.add(words[2].toLowerCase());
      stages.push([]);
    } else {
      stages.at(-1)?.push(ins);
    }
  }
  if (stages.length < 2) problems.push('Dockerfile: not multi-stage (build in one stage, run from a clean one)');
  const final = stages.at(-1) ?? [];
  const user = final.filter((i) => i.keyword === 'USER').at(-1);
  if (!user) problems.push('Dockerfile: the final stage sets no USER (it would run as root)');
  else if (/^(root|0)(:.*)?$/.test(user.args.trim())) problems.push(`Dockerfile:${user.line}: the final stage runs as root (USER ${user.args.trim()})`);
  const healthcheck = final.filter((i) => i.keyword === 'HEALTHCHECK').at(-1);
  if (!healthcheck) problems.push('Dockerfile: the final stage has no HEALTHCHECK');
  else if (/^NONE$/i.test(healthcheck.args.trim())) problems.push(`Dockerfile:${healthcheck.line}: HEALTHCHECK NONE`);
  const installs = instructions.filter((i) => i.keyword === 'RUN' && /\bpnpm\s+(install|i)\b/.test(i.args));
  if (installs.length === 0) problems.push('Dockerfile: no `pnpm install` (dependencies come from the lockfile)');
  for (const ins of installs) {
    if (!/--frozen-lockfile\b/.test(ins.args)) problems.push(`Dockerfile:${ins.line}: \`pnpm install\` without --frozen-lockfile (installs must be the lockfile's)`);
  }
  for (const ins of instructions.filter((i) => i.keyword === 'RUN' && /\bnpm\s+(install|i)\b(?!\s+(-g|--global))/.test(i.args))) {
    problems.push(`Dockerfile:${ins.line}: \`npm install\` of the project ignores pnpm's lockfile`);
  }
  return problems;
};

type Service = {
  image?: string;
  build?: unknown;
  healthcheck?: { disable?: boolean; test?: unknown };
  depends_on?: string[] | Record<string, { condition?: string }>;
  environment?: string[] | Record<string, unknown>;
  command?: unknown;
};

const SECRET_NAME = /(SECRET|PASSWORD|TOKEN|PRIVATE_KEY|ENCRYPTION_KEY|PREVIOUS_KEYS)/;
/** A password written into a URL (`scheme://user:password@host`) rather than interpolated from .env. */
const LITERAL_URL_PASSWORD = /:\/\/[^/:@\s]*:(?!\$\{)[^@\s]+@/;

const environmentOf = (service: Service): Record<string, string> => {
  const env = service.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((e) => [e.split('=')[0]!, e.split('=').slice(1).join('=')]));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]));
};

export const checkCompose = (text: string, schema: object): string[] => {
  const problems: string[] = [];
  let doc: { services?: Record<string, Service> };
  try {
    doc = parseYaml(text, { merge: true }) as typeof doc;
  } catch (e) {
    return [`compose.yaml: not YAML (${e instanceof Error ? e.message : String(e)})`];
  }
  // The vendored schema names its draft as https://json-schema.org/draft-07/schema, which Ajv registers under its
  // http://…# form; Ajv's default draft is that one, so the declaration is dropped rather than a second copy loaded.
  const { $schema: _draft, ...composeSchema } = schema as Record<string, unknown>;
  const validate = new Ajv({ strict: false, allErrors: true }).compile(composeSchema);
  if (!validate(doc)) {
    for (const e of validate.errors ?? []) problems.push(`compose.yaml: ${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  }
  const services = doc?.services ?? {};
  for (const [name, service] of Object.entries(services)) {
    const builtHere = service.build !== undefined;
    if (!builtHere && !service.healthcheck) problems.push(`compose.yaml: service ${name} has no healthcheck`);
    if (service.healthcheck?.disable) problems.push(`compose.yaml: service ${name} disables its healthcheck`);
    if (service.image && !builtHere) {
      const problem = unpinnedImage(service.image);
      if (problem) problems.push(`compose.yaml: service ${name}: ${problem}`);
    }
    if (!service.image && !builtHere) problems.push(`compose.yaml: service ${name} names no image`);
    const deps = service.depends_on ?? {};
    if (Array.isArray(deps)) {
      if (deps.length > 0) problems.push(`compose.yaml: service ${name} depends on ${deps.join(', ')} without condition: service_healthy`);
    } else {
      for (const [dep, how] of Object.entries(deps)) {
        if (how?.condition !== 'service_healthy') problems.push(`compose.yaml: service ${name} waits for ${dep} with condition ${how?.condition ?? '(none)'}, not service_healthy`);
      }
    }
    for (const [key, value] of Object.entries(environmentOf(service))) {
      if (SECRET_NAME.test(key) && value !== '' && !value.startsWith('${')) problems.push(`compose.yaml: service ${name}: ${key} is written in the file; take it from .env (\${${key}})`);
      if (LITERAL_URL_PASSWORD.test(value)) problems.push(`compose.yaml: service ${name}: ${key} holds a password; interpolate it from .env`);
    }
  }
  const images = new Set<string>();
  for (const role of ROLES) {
    const service = services[role];
    if (!service) {
      problems.push(`compose.yaml: no ${role} service (the split deployment runs ${ROLES.join(', ')})`);
      continue;
    }
    images.add(service.image ?? '(none)');
    if (environmentOf(service)['ROLE'] !== role) problems.push(`compose.yaml: service ${role} does not set ROLE: ${role} (the image's entry point and health check read it)`);
  }
  if (images.size > 1) problems.push(`compose.yaml: the roles run different images (${[...images].join(', ')}); one image serves all three`);
  return problems;
};

export const checkDockerignore = (text: string): string[] => {
  const lines = text.split('\n').map((l) => l.trim());
  const problems: string[] = [];
  if (!lines.some((l) => l === 'node_modules' || l === '**/node_modules')) problems.push('.dockerignore: node_modules is sent to the build (the image installs from the lockfile)');
  if (!lines.some((l) => l === '.env' || l === '*.env' || l === '.env*')) problems.push('.dockerignore: .env (secrets) is sent to the build');
  return problems;
};

export const checkDeploy = (files: DeployFiles): string[] => [
  ...checkDockerfile(files.dockerfile),
  ...checkCompose(files.compose, files.composeSchema),
  ...checkDockerignore(files.dockerignore),
];

if (require.main === module) {
  const at = process.argv.indexOf('--root');
  const root = at > 0 && process.argv[at + 1] ? process.argv[at + 1]! : join(__dirname, '..', '..');
  const problems = checkDeploy(readDeployFiles(root));
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`deploy check: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
    process.exit(1);
  }
  console.log(`deploy check: Dockerfile, compose.yaml (Compose Specification: ${COMPOSE_SPEC_SOURCE}) and .dockerignore pass`);
}
