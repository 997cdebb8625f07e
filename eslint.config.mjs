import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Test helpers are reached by their aliases, never by a path up the tree. */
const TEST_ALIASES = [
  {
    group: ['**/test/conformance', '**/test/conformance/*'],
    message: "Import '@agent-memory/test-conformance'.",
  },
  {
    group: ['**/libs/conformance/**'],
    message: "Import '@agent-memory/conformance'.",
  },
  {
    group: ['**/test/support/*'],
    message: "Import '@agent-memory/test-support/<file>'.",
  },
];

/** Library code never imports test code. */
const NO_TEST_CODE = {
  group: [
    '@agent-memory/conformance',
    '@agent-memory/test-conformance',
    '@agent-memory/test-support/*',
    '**/test/**',
  ],
  message: 'Library code never imports test code.',
};

/** Inside the package, folders import each other by relative path, never by the package name. */
const NO_OWN_PACKAGE = {
  group: ['@agent-memory/memory', '@agent-memory/memory/*'],
  message: 'Inside the package, import the folder by its relative path.',
};

/** Outside libs/memory, the library and the apps' shared settings are imported by name. */
const BY_PACKAGE_NAME = {
  group: ['**/libs/**', '@agent-memory/memory/*/**', '@agent-memory/memory-config/**'],
  message:
    "Import '@agent-memory/memory', one of its entry points, or '@agent-memory/memory-config' by name.",
};

/**
 * What each folder of libs/memory/src may import besides itself. core is the contract; token-count and
 * pg-errors are driver-free helpers; compaction is plain code; the backends and satellites (simple,
 * jsonfile, postgres, nats, rag, observability) and the SDK adapters (openai, ai-sdk, langchain,
 * openai-agents)
 * reach only those, never each other; the Nest shell (nest, health) and the command line (cli) sit
 * on top.
 */
const LAYERS = {
  core: [],
  'token-count': ['core'],
  'pg-errors': ['core'],
  compaction: ['core', 'token-count', 'openai'],
  simple: ['core'],
  jsonfile: ['core'],
  postgres: ['core', 'pg-errors'],
  nats: ['core'],
  rag: ['core', 'pg-errors'],
  observability: ['core'],
  openai: ['core'],
  'ai-sdk': ['core'],
  langchain: ['core'],
  // The stores' checkpoint storages are reached through their drivers' `checkpoints` satellite.
  langgraph: ['core', 'langchain', 'drivers'],
  'openai-agents': ['core'],
  mcp: ['core', 'token-count', 'compaction', 'rag'],
  transfer: ['core'],
  retention: ['core'],
  cli: ['core', 'drivers', 'postgres', 'transfer', 'mcp'],
  nest: ['core', 'token-count', 'compaction', 'rag'],
  health: ['core', 'nest', 'drivers', 'postgres', 'nats'],
  drivers: ['core', 'simple', 'jsonfile', 'postgres', 'nats'],
};

/** Import patterns that reach a folder of libs/memory/src other than `folder` and `allowed`. */
function layerBoundary(folder, allowed) {
  const forbidden = Object.keys(LAYERS).filter(
    (name) => name !== folder && !allowed.includes(name),
  );
  return forbidden.map((name) => ({
    group: [`../${name}`, `../${name}/**`, `../../${name}`, `../../${name}/**`],
    message: `libs/memory/src/${folder}/ may import only ${['itself', ...allowed].join(', ')} (see docs/architecture.md).`,
  }));
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '**/dist/',
      'data/',
      'coverage/',
      '.tmp/',
      'apps/admin/dist/',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // The conformance suites are reached by their alias, never by a path up the tree.
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: TEST_ALIASES,
        },
      ],
    },
  },
  {
    // The package ships its sources' build: nothing but specs may reach test code.
    files: ['libs/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_TEST_CODE] }] },
  },
  // The layers of libs/memory/src (docs/architecture.md, "What may import what"): each folder
  // lists the sibling folders it may import; reaching any other is an error. Specs are exempt
  // (a backend's spec may wire a Nest module). A later block replaces the rule, so each one
  // repeats the test-code ban.
  ...Object.entries(LAYERS).map(([folder, allowed]) => ({
    files: [`libs/memory/src/${folder}/**/*.ts`],
    // LangGraph's suite runs under vitest from `*.validation.ts` files: specs too.
    ignores: ['**/*.spec.ts', '**/*.validation.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [NO_TEST_CODE, ...layerBoundary(folder, allowed), NO_OWN_PACKAGE] },
      ],
    },
  })),
  {
    // Applications use the packages through their entry points, as any consumer would.
    files: ['apps/api/**/*.ts', 'apps/worker/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...TEST_ALIASES, BY_PACKAGE_NAME] }] },
  },
  {
    // The apps' shared settings are a library of the workspace: it uses @agent-memory/memory as
    // the apps do, and reaches nothing outside its own folder by path (no app, no test code).
    files: ['libs/memory-config/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_TEST_CODE,
            BY_PACKAGE_NAME,
            {
              group: ['../*', '../../*', '@agent-memory/memory-config'],
              message: 'libs/memory-config imports its own files by relative path, and no others.',
            },
          ],
        },
      ],
    },
  },
  {
    // The conformance package is a consumer of the library like any store's author: it imports
    // `@agent-memory/memory`'s main entry by name, nothing deeper and no other workspace's files.
    files: ['libs/conformance/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@agent-memory/test-conformance',
                '@agent-memory/test-support/*',
                '**/test/**',
              ],
              message: "The conformance package never imports the project's test code.",
            },
            {
              group: [
                '**/libs/**',
                '**/memory/src/**',
                '@agent-memory/memory/*',
                '@agent-memory/memory-config',
                '@agent-memory/conformance',
                '../../../*',
              ],
              message:
                "libs/conformance imports '@agent-memory/memory' by name (its main entry only) and its own files by relative path.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
