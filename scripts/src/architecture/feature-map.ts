import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The picture of the house: for each feature, its folder in each package and how many source lines it holds.
 * `pnpm architecture` prints it (docs/architecture.md embeds it); a spec keeps the feature list honest.
 */
export const FEATURES = ['identity', 'personas', 'mandates', 'ledger', 'pools', 'catalogue', 'search', 'reservations', 'audit', 'escrow', 'fees', 'invoicing', 'relais', 'webhooks'] as const;
export const LAYERS = ['event-schemas', 'domain', 'read-models', 'command-api', 'projectors', 'query-api'] as const;

const root = resolve(__dirname, '../../..');

const sourceLines = (dir: string): { files: number; lines: number } => {
  let files = 0;
  let lines = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { files, lines };
  }
  for (const name of names) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      const sub = sourceLines(full);
      files += sub.files;
      lines += sub.lines;
    } else if (name.endsWith('.ts') && !name.includes('.spec.')) {
      files += 1;
      lines += readFileSync(full, 'utf8').split('\n').length - 1;
    }
  }
  return { files, lines };
};

export interface FeatureMap {
  rows: Array<{ feature: string; cells: Array<{ layer: string; files: number; lines: number } | null> }>;
  /** Source folders of the layers that are not a feature (shared plumbing of that package). */
  others: Array<{ layer: string; folder: string; files: number; lines: number }>;
  infra: Array<{ folder: string; files: number; lines: number }>;
}

export const featureMap = (): FeatureMap => {
  const rows = FEATURES.map((feature) => ({
    feature,
    cells: LAYERS.map((layer) => {
      const dir = join(root, layer, 'src', feature);
      try {
        if (!statSync(dir).isDirectory()) return null;
      } catch {
        return null;
      }
      return { layer, ...sourceLines(dir) };
    }),
  }));
  const others = LAYERS.flatMap((layer) =>
    readdirSync(join(root, layer, 'src'))
      .filter((n) => statSync(join(root, layer, 'src', n)).isDirectory() && !(FEATURES as readonly string[]).includes(n))
      .map((folder) => ({ layer, folder, ...sourceLines(join(root, layer, 'src', folder)) })),
  );
  const infra = readdirSync(join(root, 'infra', 'src'))
    .filter((n) => statSync(join(root, 'infra', 'src', n)).isDirectory())
    .map((folder) => ({ folder, ...sourceLines(join(root, 'infra', 'src', folder)) }));
  infra.push({ folder: '../sandbox-ledger (its own package)', ...sourceLines(join(root, 'infra', 'sandbox-ledger', 'src')) });
  return { rows, others, infra };
};

export const renderFeatureMap = (map: FeatureMap = featureMap()): string => {
  const head = `| feature | ${LAYERS.join(' | ')} |\n|---|${LAYERS.map(() => '---').join('|')}|`;
  const body = map.rows
    .map((r) => `| ${r.feature} | ${r.cells.map((c) => (c ? `${c.files} files, ${c.lines} lines` : '·')).join(' | ')} |`)
    .join('\n');
  const others = map.others.map((o) => `${o.layer}/src/${o.folder} (${o.files} files)`).join(', ');
  const infra = map.infra.map((o) => `${o.folder} (${o.lines})`).join(', ');
  return `${head}\n${body}\n\nShared plumbing, not a feature: ${others || 'none'}.\n\ninfra/src, adapters only (lines): ${infra}.\n`;
};

if (require.main === module) {
  process.stdout.write(renderFeatureMap());
}
