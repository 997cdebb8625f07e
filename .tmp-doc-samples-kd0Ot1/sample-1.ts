import { MemoryModule } from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';

MemoryModule.forRoot({
  backend: () => postgresBackend({ url: process.env.DATABASE_URL! }),
  compaction: { thresholdTokens: 100_000 },
});

export {};
