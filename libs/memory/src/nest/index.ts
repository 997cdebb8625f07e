export { MemoryModule } from './memory.module';
export { MEMORY_MODULE_OPTIONS } from './memory.module-definition';
export * from './memory.constants';
export * from './memory-module-options.interface';
export * from './memory.tokens';
export * from './memory.decorators';
export {
  resolveCompactionConfig,
  type ResolvedCompactionConfig,
  type ResolvedCompactionNats,
} from './memory-options.validation';
export { MemoryService } from './memory.service';
export * from './turn.interface';
export { CompactionService } from './compaction.service';
export * from './compaction-job.interface';
export * from './compaction-worker.protocol';
export * from './compaction-job-store.interface';
export { InMemoryCompactionJobStore } from './in-memory-compaction-job.store';
export {
  SharedCompactionJobs,
  DEFAULT_COMPACTION_JOB_LEASE_MS,
  DEFAULT_COMPACTION_JOB_TTL_MS,
  JOB_OWNER_LOST,
  type SharedCompactionJobsOptions,
} from './shared-compaction-jobs';
