import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule, ConfigService } from '@nestjs/config';
import {
  jsonFileBackend,
  MemoryExceptionFilter,
  MemoryModule,
  type MemoryBackend,
} from '@agent-memory/memory';
import { MemoryHealthModule } from '@agent-memory/memory/health';
import { AgentService } from './agent.service';
import { ChatController } from './chat.controller';
import { HealthController } from './health.controller';

/** PostgreSQL when `DATABASE_URL` is set, else JSON files under `MEMORY_DIR`. */
async function backendFrom(config: ConfigService): Promise<MemoryBackend> {
  const url = config.get<string>('DATABASE_URL');
  if (!url) return jsonFileBackend({ dir: config.get('MEMORY_DIR', './data/agent') });
  // Loaded only when used, so a JSON-file deployment does not need `pg`.
  const { postgresBackend } = await import('@agent-memory/memory/postgres');
  return postgresBackend({ url });
}

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true }),
    MemoryModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService) => ({
        // A factory: the backend is made at start-up, never when this file is imported.
        backend: () => backendFrom(config),
        compaction: { thresholdTokens: Number(config.get('COMPACT_AT_TOKENS', 150_000)) },
      }),
    }),
    MemoryHealthModule.forFeature(),
  ],
  controllers: [ChatController, HealthController],
  providers: [AgentService, { provide: APP_FILTER, useClass: MemoryExceptionFilter }],
})
export class AppModule {}
