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
