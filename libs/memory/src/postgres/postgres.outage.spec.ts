import {
  PostgresRequestError,
  postgresBackend,
  type PostgresBackend,
} from '@agent-memory/memory/postgres';
import { conversation, texts } from '@agent-memory/conformance';
import { startThrowawayPostgres, type ThrowawayServer } from '@agent-memory/test-support/services';

/** Far above the 2 s connect timeout set below; only a hung call would reach it. */
const BOUND_MS = 20_000;
let server: ThrowawayServer;
let backend: PostgresBackend;

beforeAll(async () => {
  server = await startThrowawayPostgres();
  backend = await postgresBackend({
    url: server.url,
    connectTimeoutMs: 2000,
    statementTimeoutMs: 5000,
  });
}, 60_000);
afterAll(async () => {
  await backend?.close().catch(() => undefined);
  await server?.dispose();
});

/** Rejects with a distinct error when `work` neither resolves nor rejects within {@link BOUND_MS}. */
function bounded<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${BOUND_MS} ms`)), BOUND_MS);
  });
  return Promise.race([work, guard]).finally(() => clearTimeout(timer));
}

describe('PostgresMemory through a database outage', () => {
  it('fails fast with a connection error while the server is down, then works again with nothing lost', async () => {
    const memory = await backend.open('outage');
    await memory.save(conversation(4));

    // The throwaway server runs with synchronous_commit=off and stops in immediate mode, which can
    // drop the last commits; a checkpoint makes them durable, as synchronous commit would.
    await backend.dataSource.query('CHECKPOINT');
    await server.stop();
    const failure = bounded(memory.save(conversation(2, 4)));
    await expect(failure).rejects.toThrow(PostgresRequestError);
    await expect(failure).rejects.toThrow(/^PostgreSQL request failed: save of session "outage": /);
    await expect(bounded(memory.retrieve())).rejects.toMatchObject({
      name: 'PostgresRequestError',
      code: 'BACKEND_UNAVAILABLE',
      operation: 'read',
      pgCode: 'ECONNREFUSED',
    });
    await expect(bounded(backend.check())).rejects.toThrow(PostgresRequestError);

    await server.start();
    await expect(backend.check()).resolves.toBeUndefined();
    expect(texts(await memory.retrieve())).toEqual(['u0', 'a1', 'u2', 'a3']);
    await memory.save(conversation(2, 4));
    expect(texts(await memory.retrieve())).toEqual(['u0', 'a1', 'u2', 'a3', 'u4', 'a5']);
    expect(await backend.inspect('outage')).toMatchObject({ messages: 6, stored: 6 });
  }, 90_000);
});
