import { MemoryModule } from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { DataSource } from 'typeorm';
declare const dataSource: import('typeorm').DataSource;
MemoryModule.forRootAsync({
  inject: [DataSource],
  useFactory: (dataSource: DataSource) => ({ backend: () => postgresBackend({ dataSource }) }),
});

export {};
