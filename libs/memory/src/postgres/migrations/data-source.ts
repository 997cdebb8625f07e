/**
 * The data source for the TypeORM CLI (`npm run migration:run` / `migration:revert`):
 * connects to `DATABASE_URL` and migrates the tables of `MEMORY_PG_TABLE` (default
 * `conversation_memory`, `schema.table` allowed). Not imported by the library.
 */
import { MemoryMigrationDataSource } from './memory-migration.data-source';

const url = process.env.DATABASE_URL;
if (!url)
  throw new Error('DATABASE_URL is not set: point it at the PostgreSQL database to migrate');

export default new MemoryMigrationDataSource(
  { url, connectTimeoutMS: 10_000 },
  process.env.MEMORY_PG_TABLE || undefined,
);
