/**
 * The library's defaults that belong to no one store: the Nest module, compaction, listing and
 * the health probes read them here, and the apps' configuration reads them from the package
 * (`@agent-memory/memory`) rather than repeating the numbers. Each store's own defaults sit next
 * to its driver (`<store>/<store>.defaults.ts`), exported from the package root too. Plain values
 * only: importing this loads nothing.
 */

// ── Compaction (`MemoryModule.forRoot({ compaction })`) ──

/** Compaction starts once a session's context reaches this many tokens, by default. */
export const DEFAULT_COMPACTION_THRESHOLD_TOKENS = 150_000;

/** Messages a compaction leaves unsummarised at the end of the log, by default. */
export const DEFAULT_COMPACTION_KEEP_RECENT = 20;

/** @deprecated the same value as {@link DEFAULT_COMPACTION_KEEP_RECENT}; use that name. */
export const DEFAULT_KEEP_RECENT = DEFAULT_COMPACTION_KEEP_RECENT;

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

/** How long a job's state is kept after its last change, by default (ms): a day. */
export const DEFAULT_COMPACTION_JOB_TTL_MS = 86_400_000;

/** How long a queued or running job stays vouched for without a renewal, by default (ms). */
export const DEFAULT_COMPACTION_JOB_LEASE_MS = 30_000;

/** How long one chat-completions call of `OpenAiCompatibleClient` may take, by default (ms). */
export const DEFAULT_LLM_TIMEOUT_MS = 60_000;

/** The longest summary `LlmSummarizer` asks the model for, by default (tokens). */
export const DEFAULT_SUMMARY_MAX_TOKENS = 2000;

// ── Listing ──

/** Sessions per page of `MemoryBackend.list`, by default. */
export const DEFAULT_LIST_LIMIT = 50;

// ── The servers' and the command's store (`MEMORY_BACKEND`) ──

/**
 * The store the admin server, the worker and the `agent-memory` command use when `MEMORY_BACKEND`
 * (or `--backend`) is not given.
 */
export const DEFAULT_MEMORY_BACKEND = 'jsonfile';

// ── Health probes ──

/** Health probes answer within this many milliseconds, by default. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 3000;
