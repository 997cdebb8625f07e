/**
 * One snapshot racer: `pg-snapshot-racer.script.ts <url> <table> <session> <upTo> <summary>` saves a
 * snapshot with `prev` null once released, and prints `{ outcome, code? }`: `won`, or `lost` with
 * the error's code.
 */
import { MemoryError } from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { readyAndWaitForGo } from '../../../../../test/support/child-script';

async function main(): Promise<void> {
  const [url, table, session, upTo, summary] = process.argv.slice(2) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const backend = await postgresBackend({ url, table, poolSize: 2 });
  const memory = await backend.open(session);
  await memory.loadSnapshot();
  await readyAndWaitForGo();
  let outcome: { outcome: 'won' | 'lost'; code?: string };
  try {
    await memory.saveSnapshot({ summary }, Number(upTo), null);
    outcome = { outcome: 'won' };
  } catch (error) {
    if (!(error instanceof MemoryError)) throw error;
    outcome = { outcome: 'lost', code: error.code };
  }
  await backend.close();
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
