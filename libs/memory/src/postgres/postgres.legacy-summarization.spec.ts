import { textContent, type Message } from '@agent-memory/memory';
import { PostgresMemory, type PostgresBackend } from '@agent-memory/memory/postgres';
import {
  describeLegacySummarizationConformance,
  postgresInitializer,
} from '@agent-memory/test-conformance';

/** The messages in the table's rows for `id`, as any reader of the table (Phero too) sees them. */
async function rawRows(backend: PostgresBackend, id: string): Promise<string[]> {
  const rows = await backend.dataSource.query<{ message: Message }[]>(
    `SELECT message FROM ${backend.tables.messages} WHERE session_id = $1 ORDER BY seq`,
    [id],
  );
  return rows.map((row) => textContent(row.message));
}

describeLegacySummarizationConformance('postgres', {
  backends: postgresInitializer(),
  storeClass: PostgresMemory,
  secondWriter: true,
  storedTexts: (backend, id) => rawRows(backend as PostgresBackend, id),
});
