export * from './summarizer.interface';
export * from './llm.summarizer';
export * from './extractive.summarizer';
export * from './summary-compactor';
export { coverCount } from './compaction-cut';
export * from './openai-compatible.client';
export * from './llm-request.error';
export * from './compaction-job.interface';
export * from './compaction-job-store.interface';
export { InMemoryCompactionJobStore } from './in-memory-compaction-job.store';
export {
  SharedCompactionJobs,
  JOB_OWNER_LOST,
  type SharedCompactionJobsOptions,
} from './shared-compaction-jobs';
export * from './compaction-worker.protocol';
export {
  CompactionScheduler,
  type CompactionSchedulerOptions,
  type CompactionSchedulingConfig,
} from './compaction-scheduler';
export { InlineCompactionRunner, type InlineCompactionSettings } from './inline-compaction.runner';
// NatsCompactionRunner is left out on purpose: it loads @nestjs/microservices (mode 'nats' only).
