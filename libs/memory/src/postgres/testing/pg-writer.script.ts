/**
 * One writer process: `pg-writer.script.ts <url> <table> <session> <writer> <turns>` saves `turns`
 * two-message turns (`w<writer>-q<i>`, `w<writer>-a<i>`) in order and prints `{ writer }`.
 */
import { assistantMessage, userMessage } from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { readyAndWaitForGo } from '../../../../../test/support/child-script';

async function main(): Promise<void> {
  const [url, table, session, writer, turns] = process.argv.slice(2) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const backend = await postgresBackend({ url, table, poolSize: 2 });
  const memory = await backend.open(session);
  await readyAndWaitForGo();
  for (let i = 0; i < Number(turns); i++) {
    await memory.save([userMessage(`w${writer}-q${i}`), assistantMessage(`w${writer}-a${i}`)]);
  }
  await backend.close();
  process.stdout.write(`${JSON.stringify({ writer })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
