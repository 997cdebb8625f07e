/**
 * `@agent-memory/test-conformance`: the project's side of the conformance suites. The project's
 * stores as initializers of `@agent-memory/conformance` (`backends.ts`), the harnesses its own
 * tests use, and the suites only this project's code takes (the deprecated summarization option,
 * the vector stores). Test code only: the package never imports it.
 */
export * from './backends';
export * from './harness';
export * from './satellites';
export * from './legacy-summarization.conformance';
export * from './vector-store.conformance';
