/**
 * The injection token of the module's one {@link MemoryBackend} provider. Inject it with
 * `@Inject(MEMORY_BACKEND)` when you need the backend itself (`MemoryService.backend` is the same
 * object).
 */
export const MEMORY_BACKEND = Symbol('MEMORY_BACKEND');

/** Token of the compaction settings after defaults and validation ({@link ResolvedCompactionConfig}). */
export const MEMORY_COMPACTION_CONFIG = Symbol('MEMORY_COMPACTION_CONFIG');

/** Token of the {@link SharedCompactionJobs}: where compaction job states are kept for every replica. */
export const COMPACTION_JOBS = Symbol('COMPACTION_JOBS');

/** Token of the {@link CompactionRunner} that executes one check (in-process, or over NATS). */
export const COMPACTION_RUNNER = Symbol('COMPACTION_RUNNER');

/** Compaction starts once a session's context reaches this many tokens, by default. */
export const DEFAULT_COMPACTION_THRESHOLD_TOKENS = 150_000;

/** Messages a compaction leaves unsummarised at the end of the log, by default. */
export const DEFAULT_COMPACTION_KEEP_RECENT = 20;

/** Compactions that run at once in one process (across sessions), by default. */
export const DEFAULT_COMPACTION_MAX_CONCURRENT = 4;

/** Finished jobs `CompactionService.job()` still knows about, by default. */
export const DEFAULT_COMPACTION_HISTORY_LIMIT = 1000;

/** How long shutdown waits for running compactions before aborting them, by default (ms). */
export const DEFAULT_COMPACTION_SHUTDOWN_GRACE_MS = 10_000;

/** NATS subject the compaction checks are published on, by default. */
export const DEFAULT_COMPACTION_SUBJECT = 'agent-memory.compaction.check';

/** NATS queue group the compaction workers share, by default. */
export const DEFAULT_COMPACTION_QUEUE = 'agent-memory-compaction';

/** How long a publisher waits for a worker's answer to one check before trying again (ms). */
export const DEFAULT_COMPACTION_REQUEST_TIMEOUT_MS = 120_000;

/** Tries per check over NATS (a worker that is shutting down hands its check back). */
export const DEFAULT_COMPACTION_MAX_ATTEMPTS = 5;
