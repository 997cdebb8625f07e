/**
 * One compaction racer: `pg-compactor.script.ts <url> <table> <session> <keepRecent> <name>`
 * compacts the session once released (offline summariser, a threshold of 1 token) and prints the
 * `CompactionResult`.
 */
import { ExtractiveSummarizer, SummaryCompactor } from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { readyAndWaitForGo } from '../../../../../test/support/child-script';

async function main(): Promise<void> {
  const [url, table, session, keepRecent] = process.argv.slice(2) as [
    string,
    string,
    string,
    string,
  ];
  const backend = await postgresBackend({ url, table, poolSize: 2 });
  const memory = await backend.open(session);
  const compactor = new SummaryCompactor(new ExtractiveSummarizer(), {
    keepRecent: Number(keepRecent),
  });
  await memory.loadSnapshot();
  await readyAndWaitForGo();
  const result = await compactor.compact(memory, { thresholdTokens: 1 });
  await backend.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
