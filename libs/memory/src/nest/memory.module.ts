import { Module } from '@nestjs/common';
import { compactionJobsProvider } from './compaction-jobs.provider';
import { CompactionService } from './compaction.service';
import { MEMORY_BACKEND, MEMORY_COMPACTION_CONFIG } from './memory.constants';
import { ConfigurableMemoryModule } from './memory.module-definition';
import {
  compactionConfigProvider,
  compactionRunnerProvider,
  memoryBackendProvider,
} from './memory.providers';
import { MemoryService } from './memory.service';

/**
 * Conversation memory for a Nest app: `MemoryModule.forRoot({ backend, compaction?, isGlobal? })`
 * or `MemoryModule.forRootAsync({ imports, inject, useFactory | useClass | useExisting, isGlobal? })`.
 * Exports {@link MemoryService}, {@link CompactionService} and the `MEMORY_BACKEND` token. Options
 * are validated at start-up (TypeError / RangeError naming the option). The module owns the
 * backend: on shutdown compaction stops first, then the backend is closed; call
 * `app.enableShutdownHooks()` so that happens on SIGTERM.
 */
@Module({
  providers: [
    memoryBackendProvider,
    compactionConfigProvider,
    compactionRunnerProvider,
    compactionJobsProvider,
    CompactionService,
    MemoryService,
  ],
  exports: [MemoryService, CompactionService, MEMORY_BACKEND, MEMORY_COMPACTION_CONFIG],
})
export class MemoryModule extends ConfigurableMemoryModule {}
