/**
 * The data source for the TypeORM CLI (`npm run migration:run` / `migration:revert`):
 * connects to `DATABASE_URL` and migrates the tables of `MEMORY_PG_TABLE` (default
 * `conversation_memory`, `schema.table` allowed). Not imported by the library.
 */
import { MemoryMigrationDataSource } from './memory-migration.data-source';

const url = process.env.DATABASE_URL;
if (!url) {
  // Said here and the process ends: a throw would reach the user after TypeORM's own
  // "Unable to open file", which hides the reason.
  console.error(
    'DATABASE_URL is not set: point it at the PostgreSQL database to migrate, e.g.\n' +
      '  DATABASE_URL=postgres://user@host:5432/db npm run migration:run',
  );
  process.exit(1);
}

export default new MemoryMigrationDataSource(
  { url, connectTimeoutMS: 10_000 },
  process.env.MEMORY_PG_TABLE || undefined,
);
