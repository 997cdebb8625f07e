/**
 * For a store's own extra tests: the backends the suites use, with their life cycle (destroyed
 * after their test, replicas closed first; the initializer's `afterAll` after the last test).
 */
import type { MemoryBackend, SessionStore } from '@agent-memory/memory';
import type { ConformanceBackendOptions, MemoryBackendInitializer } from './initializer';
import type { ConformanceRunOptions } from './runner';
import { conformanceContext } from './suite-context';
import { resolveRunner } from './test-api';

/** Backends and sessions made through the initializer, destroyed after each test. */
export interface ConformanceBackends {
  /** The store's name. */
  name: string;
  backend(opts?: ConformanceBackendOptions): Promise<MemoryBackend>;
  /** A second opener of `of`'s storage (`of` itself for a store without `openStorage`). */
  replica(of: MemoryBackend, opts?: ConformanceBackendOptions): Promise<MemoryBackend>;
  /** A session id no other test uses. */
  newId(): string;
  /** A fresh backend and a session on it. */
  session(
    opts?: ConformanceBackendOptions,
  ): Promise<{ b: MemoryBackend; id: string; s: SessionStore }>;
}

/**
 * Call once inside a `describe`: every backend made through the returned object is destroyed
 * after its test, and the initializer's `afterAll` runs after the last test. Session ids start
 * with `idPrefix` (default `conf`).
 * @throws MissingTestRunnerError as `describeMemoryBackendConformance` does.
 */
export function useConformanceBackends(
  initializer: MemoryBackendInitializer,
  options: ConformanceRunOptions & { idPrefix?: string } = {},
): ConformanceBackends {
  return conformanceContext(resolveRunner(options.runner), initializer, options.idPrefix);
}
