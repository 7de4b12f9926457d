// ESLint (flat config): typescript-eslint's type-aware rules where they catch real bugs here (a
// promise nobody awaits loses its error and its ordering), and the workflow sandbox's import rule.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** `sql()` and `preparedSql()` (src/db/sql.ts): only repositories and src/db run raw SQL. */
const RAW_SQL = {
  regex: '(^|/)db/sql(\\.js)?$',
  importNames: ['sql', 'preparedSql'],
  message: 'Raw SQL goes in the repository of its table (a *.repository.ts method); call that method instead.',
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'clients/**/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // node:test's describe/it return promises the runner itself tracks.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Test doubles and JSON bodies are typed loosely on purpose in places; the compiler still checks the rest.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // Raw SQL belongs to repositories (issue 38): a statement lives in the repository of its table as a
    // named method, and services call the method. src/db keeps its own (the helpers, seal-secrets).
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.repository.ts', 'src/db/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [RAW_SQL] }],
    },
  },
  {
    // Contracts own their types (issue 38): workflows import them, and a service, repository, schema
    // or entity behind them would make a change there a change to what workflow histories hold.
    files: ['src/temporal/contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            RAW_SQL,
            {
              regex: '\\.(service|repository|schemas|entity)(\\.js)?$',
              message:
                'Contracts import no service, repository, schema or entity: define the type here and import it there.',
            },
          ],
        },
      ],
    },
  },
  {
    // Workflow code is replayed: only the SDK, the contracts and pure domain modules (test/workflows/determinism.test.ts).
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(node:|@mikro-orm/|@temporalio/(client|worker|activity)|pg$|koa|ioredis)',
              message: 'Workflow code runs in the replay sandbox: no I/O modules.',
            },
            {
              regex: '^\\.\\./(activities|workers|scripts)/',
              message: 'Workflows call activities through their contract types only (src/temporal/contracts).',
            },
            {
              regex:
                '^\\.\\./src/(?!temporal/contracts/|modules/tasks/task-transitions|modules/analyses/batch-status|lib/image-host)',
              message: 'Workflows import only the contracts and the pure modules.',
            },
          ],
        },
      ],
    },
  },
);
