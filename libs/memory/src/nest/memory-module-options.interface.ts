import type { ClientProxy } from '@nestjs/microservices';
import type { MemoryBackend } from '../core/backend.interface';
import type { LlmClient } from '../core/llm-client.interface';
import type { Summarizer } from '../compaction/summarizer.interface';
import type { RecallOptions } from '../rag/recall-options.interface';

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
}

/** Options of `MemoryModule.forRoot` (and what a `forRootAsync` factory returns). */
export interface MemoryModuleOptions {
  /**
   * The sessions' store, such as `jsonFileBackend({ dir })` or `await postgresBackend({ url })`
   * (a promise is awaited at start-up). The module owns it: it is closed on shutdown.
   */
  backend: MemoryBackend | Promise<MemoryBackend>;
  compaction?: MemoryCompactionOptions;
  /**
   * Semantic recall (`@agent-memory/memory/rag`): the backend is wrapped with `withRecall`, so
   * `retrieve(query)` (and `runTurn`) quotes older, relevant messages and saves are embedded in
   * the background. Checked at start-up.
   */
  recall?: RecallOptions;
}

/** A class that makes {@link MemoryModuleOptions}, for `forRootAsync({ useClass })`. */
export interface MemoryOptionsFactory {
  createMemoryOptions(): MemoryModuleOptions | Promise<MemoryModuleOptions>;
}
