export * from './summarizer.interface';
export * from './llm.summarizer';
export * from './extractive.summarizer';
export * from './summary-compactor';
export { coverCount } from './compaction-cut';
export * from './openai-compatible.client';
export * from './llm-request.error';
export * from './compaction-job.interface';
export { InMemoryCompactionJobStore } from './in-memory-compaction-job.store';
export {
  SharedCompactionJobs,
  JOB_OWNER_LOST,
  type SharedCompactionJobsOptions,
} from './shared-compaction-jobs';
export { describeCompactionError } from './compaction-job-error';
export {
  CompactionScheduler,
  type CompactionBacklog,
  type CompactionSchedulerOptions,
  type CompactionSchedulingConfig,
} from './compaction-scheduler';
export { InlineCompactionRunner, type InlineCompactionSettings } from './inline-compaction.runner';
