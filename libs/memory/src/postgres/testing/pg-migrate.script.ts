/**
 * One migration run: `pg-migrate.script.ts <url> <table>` runs the memory migrations of `table`
 * once released, and prints `{ applied }` (whether they are all applied afterwards).
 */
import { DataSource } from 'typeorm';
import { ensureMemorySchema, memoryMigrationsApplied } from '@agent-memory/memory/postgres';
import { readyAndWaitForGo } from '../../../../../test/support/child-script';

async function main(): Promise<void> {
  const [url, table] = process.argv.slice(2) as [string, string];
  const dataSource = await new DataSource({ type: 'postgres', url, poolSize: 1 }).initialize();
  await readyAndWaitForGo();
  await ensureMemorySchema(dataSource, table);
  const applied = await memoryMigrationsApplied(dataSource, table);
  await dataSource.destroy();
  process.stdout.write(`${JSON.stringify({ applied })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
