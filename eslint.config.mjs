import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    // Nothing imports an app but scripts/ (ARCHITECTURE.md).
    files: ['event-schemas/src/**/*.ts', 'domain/src/**/*.ts', 'infra/src/**/*.ts', 'command-api/src/**/*.ts', 'query-api/src/**/*.ts', 'projectors/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@cagnotte/command-api', '@cagnotte/query-api', '@cagnotte/projectors', '@cagnotte/scripts'] }],
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
