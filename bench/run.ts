/**
 * `npm run bench [name...]`: runs every suite in bench/ (or those named) and prints a markdown
 * table each. Postgres and NATS suites use TEST_DATABASE_URL / TEST_NATS_URL (the machine's
 * services by default).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { printSuite, type BenchSuite } from './harness';

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.ts'))
    .sort()
    .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)));
  for (const file of files) {
    const { suite } = (await import(join(__dirname, file))) as { suite: BenchSuite };
    const { results, notes } = await suite.run();
    printSuite(suite.name, results, notes);
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
