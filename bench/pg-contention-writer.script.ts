/**
 * One writer process of the PostgreSQL cross-process contention case:
 * `pg-contention-writer.script.ts <url> <ours|bare> <table> <session> <writer> <turns>` saves
 * `turns` two-message turns (`w<writer>-q<i>`, `w<writer>-a<i>`) once released, through the store
 * (`ours`, `table` is its `table` option) or as a bare multi-row INSERT (`bare`, `table` is the
 * quoted table), and prints `{ ms }`: the time from release to its last save.
 */
import { Client } from 'pg';
import { assistantMessage, userMessage } from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { readyAndWaitForGo } from '../test/support/child-script';

async function main(): Promise<void> {
  const [url, mode, table, session, writer, turns] = process.argv.slice(2) as [
    string,
    'ours' | 'bare',
    string,
    string,
    string,
    string,
  ];
  const turn = (i: number) => [
    userMessage(`w${writer}-q${i}`),
    assistantMessage(`w${writer}-a${i}`),
  ];
  if (mode === 'ours') {
    const backend = await postgresBackend({ url, table, poolSize: 1, ensureSchema: false });
    const memory = await backend.open(session);
    await readyAndWaitForGo();
    const started = performance.now();
    for (let i = 0; i < Number(turns); i++) await memory.save(turn(i));
    const ms = performance.now() - started;
    await backend.close();
    process.stdout.write(`${JSON.stringify({ ms })}\n`);
    return;
  }
  const client = new Client({ connectionString: url });
  await client.connect();
  await readyAndWaitForGo();
  const started = performance.now();
  for (let i = 0; i < Number(turns); i++) {
    const [q, a] = turn(i);
    await client.query(`INSERT INTO ${table} (session_id, message) VALUES ($1, $2), ($1, $3)`, [
      session,
      JSON.stringify(q),
      JSON.stringify(a),
    ]);
  }
  const ms = performance.now() - started;
  await client.end();
  process.stdout.write(`${JSON.stringify({ ms })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
