import type { BeforeApplicationShutdown, LoggerService, OnModuleDestroy } from '@nestjs/common';
import type { MemoryBackend } from '../core/backend.interface';
import type { CompactionRunner } from '../compaction/compaction-job.interface';
import type { CompactionScheduler } from '../compaction/compaction-scheduler';

/** Something the teardown closes; a runner that opened its own connection has one. */
interface Closable {
  close(): Promise<void>;
}

function isClosable(value: unknown): value is Closable {
  return typeof (value as Partial<Closable> | null)?.close === 'function';
}

/**
 * The one place a memory instance is shut down, in two Nest phases:
 * 1. `onModuleDestroy`: compaction stops taking jobs and drains (it may still write), once;
 * 2. `beforeApplicationShutdown`: the runner's own connection, then the backend, are closed.
 *
 * A `close()` that fails is logged, not rethrown: one backend that cannot close cleanly must not
 * keep the app's other modules from shutting down.
 */
export class MemoryTeardown implements OnModuleDestroy, BeforeApplicationShutdown {
  private compactionStopped: Promise<void> | null = null;
  private closed: Promise<void> | null = null;

  constructor(
    private readonly instance: string,
    private readonly compaction: CompactionScheduler,
    private readonly runner: CompactionRunner,
    private readonly backend: MemoryBackend,
    private readonly logger: LoggerService,
  ) {}

  /** Nest lifecycle: stops compaction. Idempotent. */
  onModuleDestroy(): Promise<void> {
    this.compactionStopped ??= this.compaction.shutdown();
    return this.compactionStopped;
  }

  /** Nest lifecycle: once compaction has stopped, closes the runner and then the backend. Idempotent. */
  beforeApplicationShutdown(): Promise<void> {
    this.closed ??= (async () => {
      await this.onModuleDestroy();
      if (isClosable(this.runner)) await this.closeLogged('compaction runner', this.runner);
      await this.closeLogged('backend', this.backend);
    })();
    return this.closed;
  }

  private async closeLogged(what: string, target: Closable): Promise<void> {
    try {
      await target.close();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.error(
        `closing the ${what} of memory instance "${this.instance}" failed: ${reason}`,
      );
    }
  }
}
