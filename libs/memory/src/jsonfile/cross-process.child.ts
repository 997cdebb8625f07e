/**
 * Test support for `json-file.cross-process.spec.ts`, run as its own process with
 * `node -r @swc-node/register`: opens the session file, waits for "go" on stdin (so that every
 * process starts together), then does its part and prints one JSON line with the outcome.
 *
 *   saves <file> <writer> <turns>   saves <turns> turns of 2 messages, `<writer>-<i>` and `<writer>-<i>-reply`
 *   snapshot <file> <upTo>          saves a snapshot up to <upTo> with prev null: "won" or "conflict"
 */
import { createInterface } from 'node:readline';
import {
  assistantMessage,
  JsonFileMemory,
  SnapshotConflictError,
  userMessage,
} from '@agent-memory/memory';

async function main(): Promise<void> {
  const [mode, file, ...args] = process.argv.slice(2);
  const memory = await JsonFileMemory.open(file!);
  await memory.retrieve();
  await new Promise<void>((resolve) => {
    const lines = createInterface({ input: process.stdin });
    lines.once('line', () => {
      lines.close();
      resolve();
    });
    process.stdout.write('ready\n');
  });
  if (mode === 'saves') {
    const [writer, turns] = args;
    for (let i = 0; i < Number(turns); i++) {
      await memory.save([userMessage(`${writer}-${i}`), assistantMessage(`${writer}-${i}-reply`)]);
    }
    process.stdout.write(`${JSON.stringify({ done: true })}\n`);
  } else if (mode === 'snapshot') {
    try {
      await memory.saveSnapshot({ summary: `by ${process.pid}` }, Number(args[0]), null);
      process.stdout.write(`${JSON.stringify({ outcome: 'won', pid: process.pid })}\n`);
    } catch (error) {
      if (!(error instanceof SnapshotConflictError)) throw error;
      process.stdout.write(`${JSON.stringify({ outcome: 'conflict', pid: process.pid })}\n`);
    }
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
