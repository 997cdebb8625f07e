/**
 * Test support for the JSON-file kill -9 test, run as its own process: opens the session file,
 * then saves turns of two messages (`<writer>-<i>` with a large reply, so that appends take a
 * while) as fast as it can, printing `acked <i>` after each save resolves, until it is killed.
 *
 *   node -r @swc-node/register test/support/jsonfile-kill.script.ts <file> <writer>
 */
import { assistantMessage, JsonFileMemory, userMessage } from '@agent-memory/memory';

async function main(): Promise<void> {
  const [file, writer] = process.argv.slice(2);
  const memory = await JsonFileMemory.open(file!);
  const filler = 'y'.repeat(64 * 1024);
  for (let i = 0; ; i++) {
    await memory.save([
      userMessage(`${writer}-${i}`),
      assistantMessage(`${writer}-${i} ${filler}`),
    ]);
    process.stdout.write(`acked ${i}\n`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
