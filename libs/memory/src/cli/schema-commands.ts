import { DEFAULT_MEMORY_TABLE } from '../postgres/postgres.defaults';
import { memorySchemaStatus } from '../postgres/memory-schema';
import { MemoryMigrationDataSource } from '../postgres/migrations/memory-migration.data-source';

/**
 * `agent-memory migrate` and `agent-memory status` on one database: loaded only by those commands,
 * since it needs `typeorm` and `pg`.
 * @returns the exit code: 0 done (or ready), 3 when `status` finds migrations pending.
 */
export async function runSchemaCommand(
  command: 'migrate' | 'status',
  url: string,
  table: string | undefined,
): Promise<number> {
  const dataSource = await new MemoryMigrationDataSource(
    { url, connectTimeoutMS: 10_000 },
    table,
  ).initialize();
  const name = table ?? DEFAULT_MEMORY_TABLE;
  try {
    if (command === 'migrate') {
      const applied = await dataSource.runMigrations({ transaction: 'all' });
      console.log(
        applied.length === 0
          ? `memory migrations of "${name}": already up to date`
          : `memory migrations of "${name}": applied ${applied.map((m) => m.name).join(', ')}`,
      );
      return 0;
    }
    const pending = await dataSource.showMigrations();
    const schema = await memorySchemaStatus(dataSource, table);
    console.log(`memory tables of "${name}": ${schema.ready ? 'ready' : 'not ready'}`);
    if (!schema.ready) console.log(`missing: ${schema.missing.join(', ')}`);
    console.log(`migrations: ${pending ? 'pending (run "agent-memory migrate")' : 'up to date'}`);
    return schema.ready && !pending ? 0 : 3;
  } finally {
    await dataSource.destroy();
  }
}
