/**
 * One writer process: `nats-writer.script.ts <url> <bucket> <session> <writer> <turns>` saves
 * `turns` two-message turns (`w<writer>-q<i>`, `w<writer>-a<i>`) in order, retrying a save that
 * failed with ConcurrentUpdateError, and prints `{ writer, retries }`.
 */
import { ConcurrentUpdateError, assistantMessage, userMessage } from '@agent-memory/memory';
import { natsBackend } from '@agent-memory/memory/nats';
import { readyAndWaitForGo } from '../../../../../test/support/child-script';

async function main(): Promise<void> {
  const [url, bucket, session, writer, turns] = process.argv.slice(2) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const backend = await natsBackend({ servers: url, bucket });
  const memory = await backend.open(session);
  await readyAndWaitForGo();
  let retries = 0;
  for (let i = 0; i < Number(turns); i++) {
    const turn = [userMessage(`w${writer}-q${i}`), assistantMessage(`w${writer}-a${i}`)];
    for (;;) {
      try {
        await memory.save(turn);
        break;
      } catch (error) {
        if (!(error instanceof ConcurrentUpdateError)) throw error;
        retries++;
      }
    }
  }
  await backend.close();
  process.stdout.write(`${JSON.stringify({ writer, retries })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
