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

// Explicit wiring (issue 38): a class names what it uses in one `deps` object (typed by an interface or
// Pick<>), so a long positional list cannot swap two numbers or two services of one type unnoticed.
const CONSTRUCTOR_PARAMS = {
  selector: "MethodDefinition[kind='constructor'] > FunctionExpression[params.length>4]",
  message: 'At most 4 constructor parameters: take one narrowed `deps` object instead (docs/decisions.md, D224).',
};

// No mutable state at module level in src/modules (D225): a cache, a group commit or a lazy singleton
// belongs to an instance that src/services.ts or src/commands.ts builds once per process, so two
// service graphs in one process (tests, two databases) never share it. A constant set or map declared
// ReadonlySet/ReadonlyMap stays: the compiler refuses any write to it.
const MODULE_STATE_MESSAGE =
  'No mutable state at module level in src/modules: keep it on an instance the wiring builds (docs/decisions.md, D225).';
const MUTABLE_NEW =
  'VariableDeclarator:not([id.typeAnnotation.typeAnnotation.typeName.name=/^Readonly(Set|Map)$/]) > NewExpression[callee.name=/^(Map|Set|GroupCommit)$/]';
const MODULE_STATE = [
  "Program > VariableDeclaration[kind='let']",
  "Program > ExportNamedDeclaration > VariableDeclaration[kind='let']",
  `Program > VariableDeclaration > ${MUTABLE_NEW}`,
  `Program > ExportNamedDeclaration > VariableDeclaration > ${MUTABLE_NEW}`,
].map((selector) => ({ selector, message: MODULE_STATE_MESSAGE }));

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'clients/**/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        // The node:test reporter and its partner are plain JavaScript (node:test loads reporters before tsx).
        projectService: { allowDefaultProject: ['eslint.config.js', 'scripts/lib/*.mjs'] },
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
      'no-restricted-syntax': ['error', CONSTRUCTOR_PARAMS],
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
    files: ['src/modules/**/*.ts'],
    // The local engine's own files keep theirs (D225): recognition-thread.ts is a worker thread's
    // module, so its state is that thread's, one per thread by construction; barcodes.ts and
    // native-tesseract.ts memoise the load of a WASM or native library, which loads once per thread.
    ignores: ['src/modules/recognition/engines/local/**'],
    rules: { 'no-restricted-syntax': ['error', CONSTRUCTOR_PARAMS, ...MODULE_STATE] },
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
