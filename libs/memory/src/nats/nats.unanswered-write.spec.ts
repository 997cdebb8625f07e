import { setTimeout as delay } from 'node:timers/promises';
import { userMessage } from '@agent-memory/memory';
import { NatsRequestError, natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import { conversation, texts } from '@agent-memory/conformance';
import { startThrowawayNats, type PausableServer } from '@agent-memory/test-support/services';

// A paused server takes the write into its socket and answers nothing: the client times out
// (every 300 ms) and sends the same write again; once resumed, the server reads them all. The
// pause is long enough for a loaded machine to send and time out at least once.
const TIMEOUT_MS = 300;
const PAUSE_MS = 2_000;

let server: PausableServer;
let backend: NatsBackend;

beforeAll(async () => {
  server = await startThrowawayNats();
  backend = await natsBackend({
    servers: server.url,
    bucket: `unanswered_${process.pid}`,
    timeoutMs: TIMEOUT_MS,
    writeBudgetMs: 10_000,
  });
});
afterAll(async () => {
  await backend?.close();
  await server?.dispose();
});

/** Saves `messages` while the server is paused for {@link PAUSE_MS}: the write is sent, unanswered, and then stored. */
async function saveWhilePaused(session: string, idempotencyKey?: string) {
  const memory = await backend.open(session);
  await memory.save(conversation(2));
  await server.pause();
  try {
    const saving = memory
      .save([userMessage('sent while paused')], idempotencyKey ? { idempotencyKey } : {})
      .catch((error: unknown) => error);
    await delay(PAUSE_MS);
    server.resume();
    return { memory, outcome: await saving };
  } finally {
    server.resume();
  }
}

describe('NatsMemory when a write is sent and not answered in time', () => {
  it('stores a save with an idempotency key once and answers it as stored', async () => {
    const { memory, outcome } = await saveWhilePaused('unanswered-keyed', 'turn-3');

    expect(outcome).toEqual({ first: 3, last: 3, replayed: false });
    expect(texts(await memory.retrieve())).toEqual([
      ...texts(conversation(2)),
      'sent while paused',
    ]);
    // The key is remembered: saving the turn again stores nothing.
    await expect(
      memory.save([userMessage('sent while paused')], { idempotencyKey: 'turn-3' }),
    ).resolves.toEqual({ first: 3, last: 3, replayed: true });
  });

  it('answers a save without a key BACKEND_UNAVAILABLE, having stored it once', async () => {
    const { memory, outcome } = await saveWhilePaused('unanswered-plain');

    // Another process's write on the same revision would look the same: no key, no way to tell.
    expect(outcome).toBeInstanceOf(NatsRequestError);
    expect(outcome).toMatchObject({ code: 'BACKEND_UNAVAILABLE', session: 'unanswered-plain' });
    expect(texts(await memory.retrieve())).toEqual([
      ...texts(conversation(2)),
      'sent while paused',
    ]);
  });
});
