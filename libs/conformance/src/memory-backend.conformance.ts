/**
 * `describeMemoryBackendConformance(initializer)`: every contract test of a `MemoryBackend`, one
 * suite per capability, registered with the test runner's `describe`/`it`. Tests a store cannot
 * take are registered as skipped, with the missing capability in their title.
 */
import { conformanceContext } from './suite-context';
import { assertMemoryBackendInitializer, type MemoryBackendInitializer } from './initializer';
import type { ConformanceRunOptions } from './runner';
import { describeCompactionConformance } from './suites/compaction.conformance';
import { describeEraseConformance } from './suites/erase.conformance';
import { describeErrorConformance } from './suites/errors.conformance';
import { describeLogConformance } from './suites/log.conformance';
import { describeMetadataListingConformance } from './suites/metadata-listing.conformance';
import { describeProcessConformance } from './suites/processes.conformance';
import { describeRetentionConformance } from './suites/retention.conformance';
import { describeSaveRetrieveConformance } from './suites/save-retrieve.conformance';
import { describeSavedAtConformance } from './suites/saved-at.conformance';
import { describeSnapshotConformance } from './suites/snapshots.conformance';
import { resolveRunner } from './test-api';

/** How hard the cross-process writer test pushes: `writers` processes of `turns` two-message turns. */
export interface ProcessConformanceOptions {
  writers?: number;
  turns?: number;
}

/** Options of `describeMemoryBackendConformance`. */
export interface MemoryBackendConformanceOptions extends ConformanceRunOptions {
  /** The cross-process writer test's size (default 8 processes x 100 turns). */
  processes?: ProcessConformanceOptions;
}

/**
 * Registers the contract suite for the store `initializer` describes, inside
 * `describe('<name> memory backend conformance')`.
 * @throws InvalidInitializerError for an initializer without `name` or `createBackend`.
 * @throws MissingTestRunnerError outside a test runner, or under vitest without `globals: true`
 *   and no `runner` option.
 */
export function describeMemoryBackendConformance(
  initializer: MemoryBackendInitializer,
  options: MemoryBackendConformanceOptions = {},
): void {
  const store = assertMemoryBackendInitializer(initializer);
  const t = resolveRunner(options.runner);
  t.describe(`${store.name} memory backend conformance`, () => {
    const ctx = conformanceContext(t, store);
    describeSaveRetrieveConformance(ctx);
    describeSnapshotConformance(ctx);
    describeLogConformance(ctx);
    describeSavedAtConformance(ctx);
    describeMetadataListingConformance(ctx);
    describeErrorConformance(ctx);
    describeEraseConformance(ctx);
    describeCompactionConformance(ctx);
    describeRetentionConformance(ctx);
    describeProcessConformance(t, store, options.processes);
  });
}
