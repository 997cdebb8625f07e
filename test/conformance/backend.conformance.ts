/**
 * The behaviour every backend promises (docs/architecture.md#the-contract-in-detail): one suite
 * per capability, all run by `describeBackendConformance('postgres', postgresHarness())` in each
 * backend's spec file.
 */
import { describeEraseConformance } from './erase.conformance';
import { describeErrorConformance } from './errors.conformance';
import { useConformanceBackends, type ConformanceHarness } from './harness';
import { describeLogConformance } from './log.conformance';
import { describeMetadataListingConformance } from './metadata-listing.conformance';
import { describeSaveRetrieveConformance } from './save-retrieve.conformance';
import { describeSavedAtConformance } from './saved-at.conformance';
import { describeSnapshotConformance } from './snapshots.conformance';

export function describeBackendConformance(name: string, harness: ConformanceHarness): void {
  describe(`${name} backend conformance`, () => {
    const ctx = useConformanceBackends(harness);
    describeSaveRetrieveConformance(ctx);
    describeSnapshotConformance(ctx);
    describeLogConformance(ctx);
    describeSavedAtConformance(ctx);
    describeMetadataListingConformance(ctx);
    describeErrorConformance(ctx);
    describeEraseConformance(ctx);
  });
}
