import { Logger, type OnModuleDestroy } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BackendKind, CompactionJob, RetentionAction } from '@agent-memory/memory';
import type {
  MemoryObserver,
  MemoryOperationEvent,
  SessionSizeEvent,
  StoreObserver,
} from '@agent-memory/memory/observability';
import { EventLoopHold } from './event-loop-hold';

/** Error codes that mean a session reached its size limit. */
const SIZE_LIMIT_CODES = new Set(['SESSION_TOO_LARGE']);
/** A session this full (bytes over its limit) counts as near its size limit. */
export const NEAR_SIZE_LIMIT_RATIO = 0.8;
/** Sessions near their limit remembered at most (per backend); beyond it the gauge stops rising. */
const MAX_TRACKED_NEAR_LIMIT = 100_000;
/** Operations after which a session no longer exists (it leaves the near-limit gauge). */
const REMOVING_OPERATIONS = new Set(['delete', 'clear']);

/**
 * The server's Prometheus metrics (`prom-client`, a registry of its own, names prefixed
 * `agent_memory_`), fed by the instrumented backend ({@link MemoryObserver}) and by compaction:
 * - `agent_memory_operations_total{backend,operation,outcome}` and
 *   `agent_memory_operation_duration_seconds{backend,operation}`: every store call;
 * - `agent_memory_errors_total{backend,operation,code}`: failed calls by error code;
 * - `agent_memory_session_size_limit_total{backend}`: writes refused because a session is full;
 * - `agent_memory_compactions_total{outcome}` (compacted, skipped, failed) and
 *   `agent_memory_compaction_tokens_saved_total`;
 * - `agent_memory_sessions_expired_total{action}` (delete, keep-summary): sessions retention expired;
 * - `agent_memory_cas_retries_total{backend}`: compare-and-swap retries a store reports
 *   ({@link casRetry});
 * - `agent_memory_session_size_ratio{backend}`: each written session's bytes over its size limit
 *   (NATS payload, JSON-file `maxSessionBytes`), and `agent_memory_sessions_near_size_limit{backend}`:
 *   sessions whose last write this process saw was at least 80% of the limit ({@link sessionSize});
 * - the process's default metrics (CPU, memory, event loop lag), prefixed `agent_memory_`, and
 *   `agent_memory_eventloop_hold_max_seconds`: the longest CPU time spent between two turns of the
 *   event loop since the previous scrape ({@link EventLoopHold}: unlike the lag, not raised by
 *   waiting for a CPU, so it tells a blocking call from a starved process).
 *
 * It also logs each failed call at warn level with session id, operation and code (never a
 * message's text), and each call at debug level.
 */
export class MemoryMetrics implements MemoryObserver, StoreObserver, OnModuleDestroy {
  readonly registry = new Registry();
  private readonly logger = new Logger('Memory');
  private readonly operations = new Counter({
    name: 'agent_memory_operations_total',
    help: 'Calls on the memory backend and its session stores',
    labelNames: ['backend', 'operation', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: 'agent_memory_operation_duration_seconds',
    help: 'Duration of calls on the memory backend and its session stores',
    labelNames: ['backend', 'operation'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly errors = new Counter({
    name: 'agent_memory_errors_total',
    help: 'Failed calls on the memory backend, by error code (UNKNOWN: not a MemoryError)',
    labelNames: ['backend', 'operation', 'code'] as const,
    registers: [this.registry],
  });
  private readonly recallFailures = new Counter({
    name: 'agent_memory_recall_failures_total',
    help: 'Recall failures: indexing jobs (retried) and query embeddings that failed or passed their deadline (answered without recall)',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });
  private readonly sizeLimit = new Counter({
    name: 'agent_memory_session_size_limit_total',
    help: 'Writes refused because the session reached its size limit',
    labelNames: ['backend'] as const,
    registers: [this.registry],
  });
  private readonly expired = new Counter({
    name: 'agent_memory_sessions_expired_total',
    help: 'Sessions retention expired, by action: deleted (delete) or reduced to their summary (keep-summary)',
    labelNames: ['action'] as const,
    registers: [this.registry],
  });
  private readonly compactions = new Counter({
    name: 'agent_memory_compactions_total',
    help: 'Finished compaction checks by outcome: compacted, skipped (below the threshold or nothing to cut) or failed',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly tokensSaved = new Counter({
    name: 'agent_memory_compaction_tokens_saved_total',
    help: 'Context tokens removed by compactions (tokensBefore - tokensAfter of saved snapshots)',
    registers: [this.registry],
  });
  private readonly casRetries = new Counter({
    name: 'agent_memory_cas_retries_total',
    help: 'Compare-and-swap retries of a store under contention',
    labelNames: ['backend'] as const,
    registers: [this.registry],
  });

  private readonly sizeRatio = new Histogram({
    name: 'agent_memory_session_size_ratio',
    help: "A written session's size over its size limit (1 = full: the next write is refused)",
    labelNames: ['backend'] as const,
    buckets: [0.1, 0.25, 0.5, 0.75, NEAR_SIZE_LIMIT_RATIO, 0.9, 0.95, 1],
    registers: [this.registry],
  });
  private readonly nearLimit = new Gauge({
    name: 'agent_memory_sessions_near_size_limit',
    help: `Sessions whose last write seen by this process took at least ${NEAR_SIZE_LIMIT_RATIO * 100}% of their size limit`,
    labelNames: ['backend'] as const,
    registers: [this.registry],
  });
  /** Per backend, the ids of the sessions near their limit. */
  private readonly nearLimitIds = new Map<BackendKind, Set<string>>();

  private readonly loopHold = new EventLoopHold();

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    if (opts.defaultMetrics === false) return;
    collectDefaultMetrics({ register: this.registry, prefix: 'agent_memory_' });
    const hold = this.loopHold;
    hold.start();
    new Gauge({
      name: 'agent_memory_eventloop_hold_max_seconds',
      help: 'Longest CPU time spent between two turns of the event loop since the previous scrape (waits for a CPU excluded, unlike the lag)',
      registers: [this.registry],
      collect() {
        this.set(hold.takeMaxMs() / 1000);
      },
    });
  }

  onModuleDestroy(): void {
    this.loopHold.stop();
  }

  operation(event: MemoryOperationEvent): void {
    const { backend, operation, errorCode } = event;
    this.operations.inc({ backend, operation, outcome: errorCode === null ? 'ok' : 'error' });
    if (errorCode === null && event.sessionId !== null && REMOVING_OPERATIONS.has(operation)) {
      this.markNearLimit(backend, event.sessionId, false);
    }
    this.durations.observe({ backend, operation }, event.durationMs / 1000);
    if (errorCode === null) {
      this.logger.debug?.({
        sessionId: event.sessionId,
        operation,
        backend,
        ms: round(event.durationMs),
      });
      return;
    }
    this.errors.inc({ backend, operation, code: errorCode });
    if (SIZE_LIMIT_CODES.has(errorCode)) this.sizeLimit.inc({ backend });
    this.logger.warn({
      sessionId: event.sessionId,
      operation,
      backend,
      code: errorCode,
      ms: round(event.durationMs),
    });
  }

  /** A finished compaction job (any: afterTurn checks included). */
  compactionFinished(job: CompactionJob): void {
    if (job.state === 'failed') {
      this.compactions.inc({ outcome: 'failed' });
      return;
    }
    const result = job.result;
    if (!result?.compacted) {
      this.compactions.inc({ outcome: 'skipped' });
      return;
    }
    this.compactions.inc({ outcome: 'compacted' });
    if (!job.dryRun) this.tokensSaved.inc(Math.max(0, result.tokensBefore - result.tokensAfter));
  }

  /** Counts one session a retention sweep expired (a dry run counts nothing). */
  sessionExpired(action: RetentionAction): void {
    this.expired.inc({ action });
  }

  /** Counts one recall failure: an indexing job (`index`) or a query's embedding (`query`). */
  recallFailed(operation: 'index' | 'query'): void {
    this.recallFailures.inc({ operation });
  }

  /** Hook for a store that retries a compare-and-swap (such as the NATS store under contention). */
  casRetry(backend: string, retries = 1): void {
    this.casRetries.inc({ backend }, retries);
  }

  /** A store wrote a session of `event.bytes` against its limit. */
  sessionSize(event: SessionSizeEvent): void {
    if (!(event.limitBytes > 0)) return;
    const ratio = event.bytes / event.limitBytes;
    this.sizeRatio.observe({ backend: event.backend }, ratio);
    this.markNearLimit(event.backend, event.sessionId, ratio >= NEAR_SIZE_LIMIT_RATIO);
  }

  private markNearLimit(backend: BackendKind, sessionId: string, near: boolean): void {
    let ids = this.nearLimitIds.get(backend);
    if (!ids) {
      if (!near) return;
      this.nearLimitIds.set(backend, (ids = new Set()));
    }
    if (near && ids.size < MAX_TRACKED_NEAR_LIMIT) ids.add(sessionId);
    else if (!near) ids.delete(sessionId);
    this.nearLimit.set({ backend }, ids.size);
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
