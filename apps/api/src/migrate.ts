/**
 * The migrate command: `node dist/apps/api/src/migrate.js` (in the image, or `npm run migrate`
 * after `npm run build`). Applies the memory migrations of `MEMORY_PG_TABLE` (default
 * `conversation_memory`, `schema.table` allowed) on `DATABASE_URL`, and exits 0; 1 with the reason
 * otherwise. Safe to run again and from several pods at once (the migrations take an advisory
 * lock). Run it before the API and worker pods, which then use `MEMORY_PG_ENSURE_SCHEMA=false`
 * and need no CREATE right (the Kubernetes Job in `docker/k8s/migrate-job.yaml`).
 */
import 'reflect-metadata';
import { DEFAULT_MEMORY_TABLE, MemoryMigrationDataSource } from '@agent-memory/memory/postgres';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url)
    throw new Error('DATABASE_URL is not set: point it at the PostgreSQL database to migrate');
  const table = process.env.MEMORY_PG_TABLE || undefined;
  const dataSource = await new MemoryMigrationDataSource(
    { url, connectTimeoutMS: 10_000 },
    table,
  ).initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'all' });
    console.log(
      applied.length === 0
        ? `memory migrations of "${dataSource.table ?? DEFAULT_MEMORY_TABLE}": already up to date`
        : `memory migrations of "${dataSource.table ?? DEFAULT_MEMORY_TABLE}": applied ${applied
            .map((migration) => migration.name)
            .join(', ')}`,
    );
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(`migrate failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
