import type {
  InjectionToken,
  ModuleMetadata,
  OptionalFactoryDependency,
  Type,
} from '@nestjs/common';
import type { MemoryBackend } from '../core/backend.interface';
import type { LlmClient } from '../core/llm-client.interface';
import type { Summarizer } from '../compaction/summarizer.interface';
import type { RecallOptions } from '../rag/recall-options.interface';
import type { CompactionJob } from '../core/compaction-job';
import type { CompactionJobStore } from '../core/compaction-job-store.interface';
import type { CompactionClientProxy } from './compaction-worker.protocol';

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
  client?: CompactionClientProxy;
  /** Subject of the checks; the workers must listen on the same. Default `agent-memory.compaction.check`. */
  subject?: string;
  /** Queue group of the workers (used by `apps/worker`). Default `agent-memory-compaction`. */
  queue?: string;
  /** How long to wait for a worker's answer before trying again (ms). Default 120000. */
  requestTimeoutMs?: number;
  /** Tries per check before the job fails. Default 5. */
  maxAttempts?: number;
}

/** How and when sessions are compacted (docs/architecture.md#compaction). */
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

/**
 * Makes the backend when the module starts (Nest's module init), so that nothing connects when
 * the file that calls `forRoot` is imported: `() => postgresBackend({ url })`.
 */
export type MemoryBackendFactory = () => MemoryBackend | Promise<MemoryBackend>;

/** Options of `MemoryModule.forRoot` (and what a `forRootAsync` factory returns). */
export interface MemoryModuleOptions {
  /**
   * The sessions' store: a factory called at start-up (`() => postgresBackend({ url })`, the
   * recommended form), a backend (`jsonFileBackend({ dir })`), or a backend promise (awaited at
   * start-up; its rejection fails start-up with the backend's error, never as an unhandled
   * rejection). The module owns the backend: it is closed on shutdown.
   */
  backend: MemoryBackend | Promise<MemoryBackend> | MemoryBackendFactory;
  compaction?: MemoryCompactionOptions;
  /**
   * Semantic recall (`@agent-memory/memory/rag`): the backend is wrapped with `withRecall`, so
   * `retrieve(query)` (and `runTurn`) quotes older, relevant messages and saves are embedded in
   * the background. Checked at start-up.
   */
  recall?: RecallOptions;
}

/** What `forRoot` / `forRootAsync` take besides the options: which instance, and how visible. */
export interface MemoryInstanceOptions {
  /**
   * The instance's name, for several memories in one app: inject it with `@InjectMemory(name)`,
   * `@InjectMemoryBackend(name)` (tokens `getMemoryToken(name)`, `getMemoryBackendToken(name)`).
   * Without a name, the default instance: `MemoryService`, `MEMORY_BACKEND`.
   */
  name?: string;
  /** Make the instance visible to every module without importing it. Default false. */
  isGlobal?: boolean;
}

/** Options of `MemoryModule.forRoot`. */
export interface MemoryModuleRootOptions extends MemoryModuleOptions, MemoryInstanceOptions {}

/**
 * Options of `MemoryModule.forRootAsync`: the options come from `useFactory` (with `inject`),
 * `useClass` or `useExisting` (a {@link MemoryOptionsFactory}), called at start-up.
 */
export interface MemoryModuleAsyncOptions
  extends MemoryInstanceOptions, Pick<ModuleMetadata, 'imports'> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Nest's own factories take any
  useFactory?: (...args: any[]) => MemoryModuleOptions | Promise<MemoryModuleOptions>;
  inject?: (InjectionToken | OptionalFactoryDependency)[];
  useClass?: Type<MemoryOptionsFactory>;
  useExisting?: InjectionToken;
}

/** A class that makes {@link MemoryModuleOptions}, for `forRootAsync({ useClass })`. */
export interface MemoryOptionsFactory {
  createMemoryOptions(): MemoryModuleOptions | Promise<MemoryModuleOptions>;
}
