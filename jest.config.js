/** Server-side tests: swc transpiles (decorators and their metadata included); `tsc --noEmit` is the type gate. */
const swcOptions = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
};

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/apps', '<rootDir>/examples', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/apps/admin/'],
  transform: { '^.+\\.ts$': ['@swc/jest', swcOptions] },
  moduleNameMapper: {
    '^@agent-memory/memory$': '<rootDir>/libs/memory/src/index.ts',
    '^@agent-memory/memory/(.*)$': '<rootDir>/libs/memory/src/$1/index.ts',
    // The memory settings shared by apps/api and apps/worker (a workspace library of its own).
    '^@agent-memory/memory-config$': '<rootDir>/libs/memory-config/src/index.ts',
    // The contract suites, a workspace package of their own (built like the library).
    '^@agent-memory/conformance$': '<rootDir>/libs/conformance/src/index.ts',
    // The project's stores as its initializers, and the suites only the project takes (test code).
    '^@agent-memory/test-conformance$': '<rootDir>/test/conformance/index.ts',
    // Test helpers (servers, fakes, process scripts), for the specs next to the library's sources.
    '^@agent-memory/test-support/(.*)$': '<rootDir>/test/support/$1',
  },
  testTimeout: 30000,
  maxWorkers: 2,
};
