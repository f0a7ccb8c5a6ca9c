import { resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ESLint } from 'eslint';

/**
 * The floors of the house (docs/architecture.md) are ESLint rules. These specs lint small sources as if they
 * were files of each package and show that each rule fails on a violation and stays quiet on the allowed form.
 */
const test = suite('architecture: the lint rules hold the floors');
const root = resolve(__dirname, '../../..');
const eslint = new ESLint({ cwd: root });

const problems = async (file: string, source: string): Promise<string[]> => {
  const [result] = await eslint.lintText(source, { filePath: resolve(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
};

const cases: Array<{ file: string; source: string; refused: boolean; why: string }> = [
  { file: 'query-api/src/pools/x.ts', source: "import { decidePool } from '@cagnotte/domain';\nvoid decidePool;\n", refused: true, why: 'query-api may not import the domain' },
  { file: 'query-api/src/pools/x.ts', source: "import { evolvePool } from '@cagnotte/domain/src/pools/pool';\nvoid evolvePool;\n", refused: true, why: 'nor a deep path into it' },
  { file: 'query-api/src/pools/x.ts', source: "import { NotFoundError } from '@cagnotte/domain/errors';\nvoid NotFoundError;\n", refused: false, why: 'the error vocabulary is allowed' },
  { file: 'query-api/src/pools/x.ts', source: "import type { EventStore } from '@cagnotte/infra';\nexport type S = EventStore;\n", refused: true, why: 'query-api may not read the event store' },
  { file: 'query-api/src/pools/x.ts', source: "import { PostgresEventStore } from '@cagnotte/infra';\nvoid PostgresEventStore;\n", refused: true, why: 'nor open one' },
  { file: 'query-api/src/pools/x.ts', source: "import { parseEvent } from '@cagnotte/event-schemas';\nvoid parseEvent;\n", refused: true, why: 'nor parse events' },
  { file: 'query-api/src/pools/x.ts', source: "import { defineRoute } from '@cagnotte/infra';\nvoid defineRoute;\n", refused: false, why: 'the HTTP kit is allowed' },
  { file: 'read-models/src/pools/x.ts', source: "import { evolvePool } from '@cagnotte/domain';\nvoid evolvePool;\n", refused: true, why: 'a read model folds its own shape, not the aggregate' },
  { file: 'command-api/src/pools/x.ts', source: "import { makeQueryRoutes } from '@cagnotte/query-api';\nvoid makeQueryRoutes;\n", refused: true, why: 'app → app' },
  { file: 'projectors/src/pools/x.ts', source: "import { makeCommandRoutes } from '@cagnotte/command-api';\nvoid makeCommandRoutes;\n", refused: true, why: 'app → app' },
  { file: 'infra/src/x.ts', source: "import { isCatalogued } from '@cagnotte/read-models';\nvoid isCatalogued;\n", refused: true, why: 'infra holds adapters only' },
  { file: 'infra/sandbox-ledger/src/x.ts', source: "import { loadConfig } from '@cagnotte/infra';\nvoid loadConfig;\n", refused: true, why: 'the sandbox network is a system of its own' },
  { file: 'domain/src/pools/x.ts', source: "import { Knex } from 'knex';\nexport type K = Knex;\n", refused: true, why: 'the domain is pure' },
  { file: 'domain/src/pools/x.ts', source: "import { createKnex } from '@cagnotte/infra';\nvoid createKnex;\n", refused: true, why: 'the domain does not reach down to adapters' },
  { file: 'command-api/src/pools/x.ts', source: "import { decidePool } from '@cagnotte/domain';\nvoid decidePool;\n", refused: false, why: 'the command side decides with the domain' },
];

for (const c of cases) {
  test(`${c.refused ? 'refuses' : 'allows'}: ${c.why} (${c.file})`, async () => {
    const found = await problems(c.file, c.source);
    if (c.refused) assert.ok(found.length > 0, `expected a no-restricted-imports error in ${c.file}`);
    else assert.equal(found, [], `expected no restriction in ${c.file}`);
  });
}

test.run();
