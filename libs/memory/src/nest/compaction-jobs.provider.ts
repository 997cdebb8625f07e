import { Logger, type Provider } from '@nestjs/common';
import { COMPACTION_JOBS } from './memory.constants';
import { MEMORY_MODULE_OPTIONS } from './memory.module-definition';
import type { MemoryModuleOptions } from './memory-module-options.interface';
import { SharedCompactionJobs } from '../compaction/shared-compaction-jobs';

/** The {@link SharedCompactionJobs} of the module's `compaction.jobs` options (the store awaited). */
export const compactionJobsProvider: Provider = {
  provide: COMPACTION_JOBS,
  inject: [MEMORY_MODULE_OPTIONS],
  useFactory: createSharedCompactionJobs,
};

/** Builds the shared job record of one module instance from its options (the store awaited). */
export async function createSharedCompactionJobs(
  options: MemoryModuleOptions,
): Promise<SharedCompactionJobs> {
  const jobs = options.compaction?.jobs ?? {};
  const store = await jobs.store;
  if (
    store !== undefined &&
    (typeof store?.put !== 'function' || typeof store.get !== 'function')
  ) {
    throw new TypeError('compaction.jobs.store must be a CompactionJobStore (put and get)');
  }
  return new SharedCompactionJobs({ ...jobs, store, logger: new Logger('CompactionJobs') });
}
