import type { ClientProxy } from '@nestjs/microservices';
import type { MemoryBackend } from '../core/backend.interface';
import type { LlmClient } from '../core/llm-client.interface';
import type { Summarizer } from '../compaction/summarizer.interface';
import type { CompactionJob } from './compaction-job.interface';
import type { CompactionJobStore } from './compaction-job-store.interface';

/** Where compaction job states are kept so that every replica answers for them. */
export interface MemoryCompactionJobsOptions {
  /**
   * The job store, such as `postgresCompactionJobStore(backend)` (a promise is awaited at
   * start-up). Default: in this process only.
   */
  store?: CompactionJobStore | Promise<CompactionJobStore | undefined>;
  /** How long a job's state is kept after its last change (ms). Default 86400000 (a day). */
  ttlMs?: number;
  /** A queued or running job not renewed by its process for this long is reported failed (ms). Default 30000. */
  leaseMs?: number;
  /** The clock of leases and expiry (epoch ms); tests inject one. Default `Date.now`. */
  now?: () => number;
  /** Told once about every job that ends (`done` or `failed`, `afterTurn` checks included), for metrics. */
  onFinished?: (job: CompactionJob) => void;
}

/** Where compaction checks go with `mode: 'nats'`. Give `servers` or `client`. */
export interface MemoryCompactionNatsOptions {
  /** NATS server URL(s); the module opens (and closes) its own `ClientProxy` on them. */
  servers?: string | string[];
  /**
   * An existing NATS `ClientProxy` (for example from `ClientsModule`) to publish on instead of
   * `servers`. The module does not close it.
   */
  client?: ClientProxy;
  /** Subject of the checks; the workers must listen on the same. Default `agent-memory.compaction.check`. */
  subject?: string;
  /** Queue group of the workers (used by `apps/worker`). Default `agent-memory-compaction`. */
  queue?: string;
  /** How long to wait for a worker's answer before trying again (ms). Default 120000. */
  requestTimeoutMs?: number;
  /** Tries per check before the job fails. Default 5. */
  maxAttempts?: number;
}

/** How and when sessions are compacted (SPEC §5). */
export interface MemoryCompactionOptions {
  /** A session is compacted once its context reaches this many tokens. Default 150000. */
  thresholdTokens?: number;
  /** Messages left unsummarised at the end of the log. Default 20. */
  keepRecent?: number;
  /** Summarise with this model (through `LlmSummarizer`). Give `llm` or `summarizer`, not both. */
  llm?: LlmClient;
  /** Summarise with this. With neither `llm` nor `summarizer`, the offline `ExtractiveSummarizer`. */
  summarizer?: Summarizer;
  /** `inline` (default) compacts in this process; `nats` sends the checks to compaction workers. */
  mode?: 'inline' | 'nats';
  /** Required with `mode: 'nats'`. */
  nats?: MemoryCompactionNatsOptions;
  /** Compactions running at once in this process, across sessions. Default 4. */
  maxConcurrent?: number;
  /** Finished jobs kept for `CompactionService.job()`. Default 1000. */
  historyLimit?: number;
  /** On shutdown, how long running compactions may finish before they are aborted (ms). Default 10000. */
  shutdownGraceMs?: number;
  /** Where job states are kept for `CompactionService.lookup` on every replica. */
  jobs?: MemoryCompactionJobsOptions;
}

/** Options of `MemoryModule.forRoot` (and what a `forRootAsync` factory returns). */
export interface MemoryModuleOptions {
  /**
   * The sessions' store, such as `jsonFileBackend({ dir })` or `await postgresBackend({ url })`
   * (a promise is awaited at start-up). The module owns it: it is closed on shutdown.
   */
  backend: MemoryBackend | Promise<MemoryBackend>;
  compaction?: MemoryCompactionOptions;
}

/** A class that makes {@link MemoryModuleOptions}, for `forRootAsync({ useClass })`. */
export interface MemoryOptionsFactory {
  createMemoryOptions(): MemoryModuleOptions | Promise<MemoryModuleOptions>;
}
