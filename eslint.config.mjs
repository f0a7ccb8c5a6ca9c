import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import sqlNumbers from './scripts/eslint/sql-numbers-as-text.mjs';

const APPS = ['@cagnotte/command-api', '@cagnotte/command-api/*', '@cagnotte/query-api', '@cagnotte/query-api/*', '@cagnotte/projectors', '@cagnotte/projectors/*', '@cagnotte/scripts', '@cagnotte/scripts/*'];
/** What reads the event store: the query side may import none of it (docs/architecture.md, the floors). */
const EVENT_STORE_NAMES = ['EventStore', 'PostgresEventStore', 'EventStoreDbEventStore', 'PullSubscription', 'SubscriptionSet'];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'scripts/bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // Numbers are ordered as numbers, never as text (STYLE.md rule 11): no SQL sorts, compares or pages by a text cast.
    files: ['**/*.ts'],
    plugins: { cagnotte: sqlNumbers },
    rules: { 'cagnotte/sql-no-text-sort-key': 'error' },
  },
  {
    // Nothing imports an app but scripts/ (ARCHITECTURE.md).
    files: ['event-schemas/src/**/*.ts', 'domain/src/**/*.ts', 'infra/src/**/*.ts', 'read-models/src/**/*.ts', 'command-api/src/**/*.ts', 'projectors/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: APPS, message: 'nothing imports an app but scripts/ (docs/architecture.md)' }] }],
    },
  },
  {
    // infra holds adapters only: it never reaches up into the read side's shapes.
    files: ['infra/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: APPS, message: 'nothing imports an app but scripts/' }, { group: ['@cagnotte/read-models', '@cagnotte/read-models/*'], message: 'infra holds adapters only; read models sit above it' }] }],
    },
  },
  {
    // The sandbox Stellar network is a system of its own: it knows nothing of Cagnotte.
    files: ['infra/sandbox-ledger/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@cagnotte/*'], message: 'the sandbox network is a system of its own: no Cagnotte package' }] }],
    },
  },
  {
    // The query side reads read models only: no domain (bar its error vocabulary), no event store.
    files: ['query-api/src/**/*.ts', 'read-models/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: APPS, message: 'nothing imports an app but scripts/' },
            { regex: '^@cagnotte/domain(?!/errors$)(/.*)?$', message: 'the query side does not decide: read models only (error classes come from @cagnotte/domain/errors)' },
          ],
          paths: [
            { name: '@cagnotte/infra', importNames: EVENT_STORE_NAMES, message: 'the query side reads read models, never the event store' },
            { name: '@cagnotte/event-schemas', importNames: ['parseEvent', 'eventRegistry'], message: 'the query side reads read models, never events' },
          ],
        },
      ],
    },
  },
  {
    // The domain stays pure: no I/O, no clock, no randomness (STYLE.md rule 1).
    files: ['domain/src/**/*.ts'],
    ignores: ['domain/src/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['knex', 'pg', 'express', 'ioredis', '@stellar/*', 'node:*', '@cagnotte/infra', '@cagnotte/command-api', '@cagnotte/query-api', '@cagnotte/projectors'] }],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'time comes in the command' },
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'time comes in the command' },
        { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'no randomness in the domain' },
      ],
    },
  },
);
