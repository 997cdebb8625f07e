import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
          patterns: [
            {
              group: ['**/test/conformance', '**/test/conformance/*'],
              message: "Import '@agent-memory/conformance'.",
            },
            {
              group: ['**/test/support/*'],
              message: "Import '@agent-memory/test-support/<file>'.",
            },
          ],
        },
      ],
    },
  },
  {
    // The package ships its sources' build: nothing but specs may reach test code.
    files: ['libs/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@agent-memory/conformance', '@agent-memory/test-support/*', '**/test/**'],
              message: 'Library code never imports test code.',
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
