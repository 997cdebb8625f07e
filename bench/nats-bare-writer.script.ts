/**
 * The bare baseline of the NATS contention benchmark, one process:
 * `nats-bare-writer.script.ts <servers> <bucket> <session> <writer> <turns>` appends `turns`
 * two-message turns to the key's plain JSON array with the minimal correct loop (get, parse,
 * push, update with the revision read, retry on a lost race) and prints `{ writer, retries }`.
 */
import { assistantMessage, userMessage } from '@agent-memory/memory';
import { connect } from 'nats';
import { readyAndWaitForGo } from '../test/support/child-script';

async function main(): Promise<void> {
  const [servers, bucket, session, writer, turns] = process.argv.slice(2) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const nc = await connect({ servers: servers.split(',') });
  const kv = await nc.jetstream().views.kv(bucket, { history: 1 });
  await readyAndWaitForGo();
  let retries = 0;
  for (let i = 0; i < Number(turns); i++) {
    const turn = [userMessage(`w${writer}-q${i}`), assistantMessage(`w${writer}-a${i}`)];
    for (;;) {
      const entry = await kv.get(session);
      const live = entry && entry.operation === 'PUT' && entry.length > 0;
      const log = live ? (JSON.parse(entry.string()) as unknown[]) : [];
      log.push(...turn);
      try {
        if (entry) await kv.update(session, JSON.stringify(log), entry.revision);
        else await kv.create(session, JSON.stringify(log));
        break;
      } catch (error) {
        if (!/wrong last sequence|key exists/i.test((error as Error).message)) throw error;
        retries++;
      }
    }
  }
  await nc.close();
  process.stdout.write(`${JSON.stringify({ writer, retries })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
