/**
 * One writer process of the PostgreSQL cross-process contention case:
 * `pg-contention-writer.script.ts <url> <ours|bare> <table> <session> <writer> <turns> <warmup>`
 * saves `turns` two-message turns (`w<writer>-q<i>`, `w<writer>-a<i>`) once released, through the
 * store (`ours`, `table` is its `table` option) or as a bare multi-row INSERT (`bare`, `table` is
 * the quoted table), and prints `{ ms }`: the time from release to its last save. Before it says
 * it is ready it makes `warmup` saves the same way on a session of its own, so that what is timed
 * is a process in its steady state (code compiled by V8's optimising tiers, connection warm), as a
 * server is after its first minutes, not a fresh process's first hundred calls.
 */
import { Client } from 'pg';
import { assistantMessage, userMessage } from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { readyAndWaitForGo } from '../test/support/child-script';

async function main(): Promise<void> {
  const [url, mode, table, session, writer, turns, warmup] = process.argv.slice(2) as [
    string,
    'ours' | 'bare',
    string,
    string,
    string,
    string,
    string,
  ];
  const warmupSession = `${session}-warmup-${writer}`;
  const turn = (i: number) => [
    userMessage(`w${writer}-q${i}`),
    assistantMessage(`w${writer}-a${i}`),
  ];
  if (mode === 'ours') {
    const backend = await postgresBackend({ url, table, poolSize: 1, ensureSchema: false });
    const memory = await backend.open(session);
    const own = await backend.open(warmupSession);
    for (let i = 0; i < Number(warmup); i++) await own.save(turn(i));
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
  const insert = (into: string, i: number) => {
    const [q, a] = turn(i);
    return client.query(`INSERT INTO ${table} (session_id, message) VALUES ($1, $2), ($1, $3)`, [
      into,
      JSON.stringify(q),
      JSON.stringify(a),
    ]);
  };
  for (let i = 0; i < Number(warmup); i++) await insert(warmupSession, i);
  await readyAndWaitForGo();
  const started = performance.now();
  for (let i = 0; i < Number(turns); i++) await insert(session, i);
  const ms = performance.now() - started;
  await client.end();
  process.stdout.write(`${JSON.stringify({ ms })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
