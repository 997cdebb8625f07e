/**
 * One writer process for the NATS contention and cluster tests:
 * `nats-turn-writer.script.ts <servers,comma,separated> <bucket> <session> <writer> <turns>` saves
 * `turns` two-message turns (`w<writer>-q<i>`, `w<writer>-a<i>`) in order, once each (no retry
 * by the caller), and prints `{ writer, acknowledged, refused, failed }`: the turn numbers whose
 * save resolved, and how many were refused with ConcurrentUpdateError or failed otherwise (a
 * server going away). A turn that failed may or may not be stored; one acknowledged must be.
 */
import { ConcurrentUpdateError, assistantMessage, userMessage } from '@agent-memory/memory';
import { natsBackend } from '@agent-memory/memory/nats';
import { readyAndWaitForGo } from './child-script';

export interface TurnWriterResult {
  writer: string;
  acknowledged: number[];
  refused: number;
  failed: number;
  /** The first few failure messages, for a test's log. */
  errors: string[];
}

async function main(): Promise<void> {
  const [servers, bucket, session, writer, turns] = process.argv.slice(2) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const backend = await natsBackend({ servers: servers.split(','), bucket, timeoutMs: 2000 });
  const memory = await backend.open(session);
  await readyAndWaitForGo();
  const result: TurnWriterResult = { writer, acknowledged: [], refused: 0, failed: 0, errors: [] };
  for (let i = 0; i < Number(turns); i++) {
    try {
      await memory.save([userMessage(`w${writer}-q${i}`), assistantMessage(`w${writer}-a${i}`)]);
      result.acknowledged.push(i);
    } catch (error) {
      if (error instanceof ConcurrentUpdateError) result.refused++;
      else result.failed++;
      if (result.errors.length < 5) result.errors.push((error as Error).message);
    }
  }
  await backend.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
