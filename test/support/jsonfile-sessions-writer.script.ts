/**
 * One writer process of the JSON-file session index tests:
 * `jsonfile-sessions-writer.script.ts <dir> <id>...` saves a turn to each session in turn
 * through a backend of its own once released (every third one also gets a title, so that some
 * are in log form), and prints `{ written }`: the ids, in the order written.
 */
import { assistantMessage, jsonFileBackend, userMessage } from '@agent-memory/memory';
import { readyAndWaitForGo } from './child-script';

async function main(): Promise<void> {
  const [dir, ...ids] = process.argv.slice(2) as [string, ...string[]];
  const backend = jsonFileBackend({ dir });
  await readyAndWaitForGo();
  for (const [i, id] of ids.entries()) {
    const memory = await backend.open(id);
    await memory.save([userMessage(`question to ${id}`), assistantMessage(`answer from ${id}`)]);
    if (i % 3 === 0) await memory.setMeta('title', `session ${id}`);
    // Each session its own modification time (ms): newest first is then the order written.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await backend.close();
  process.stdout.write(`${JSON.stringify({ written: ids })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
