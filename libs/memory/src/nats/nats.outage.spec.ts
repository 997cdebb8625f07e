import { BackendUnavailableError } from '@agent-memory/memory';
import { userMessage } from '@agent-memory/memory';
import { NatsRequestError, natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import { conversation, texts } from '@agent-memory/conformance';
import {
  freePort,
  startThrowawayNats,
  type ThrowawayServer,
} from '@agent-memory/test-support/services';

/** Retries `fn` until it resolves, `attempts` times at most (each try is bounded by the KV timeout). */
async function eventually<T>(fn: () => Promise<T>, attempts = 40): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (error) {
      if (i >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe('NATS backend while the server is down', () => {
  let server: ThrowawayServer;
  let backend: NatsBackend;
  beforeAll(async () => {
    server = await startThrowawayNats();
    backend = await natsBackend({
      servers: server.url,
      bucket: 'outage',
      timeoutMs: 1000,
      connectionOptions: { reconnectTimeWait: 100 },
    });
  });
  afterAll(async () => {
    await backend.close();
    await server.dispose();
  });

  it('fails calls with a NatsRequestError, then works again with nothing lost once it is back', async () => {
    const memory = await backend.open('outage-1');
    await memory.save(conversation(4));
    await memory.setMeta('title', 'before the outage');

    await server.stop();
    const failure = await memory.retrieve().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(NatsRequestError);
    expect(failure).toBeInstanceOf(BackendUnavailableError);
    expect(failure).toMatchObject({ code: 'BACKEND_UNAVAILABLE', session: 'outage-1' });
    expect((failure as Error).message).toMatch(/NATS request failed: read of session "outage-1"/);
    await expect(backend.check()).rejects.toThrow(NatsRequestError);
    await expect(backend.inspect('outage-1')).rejects.toThrow(NatsRequestError);

    await server.start();
    await eventually(() => backend.check());
    expect(texts(await memory.retrieve())).toEqual(texts(conversation(4)));
    expect(await memory.meta()).toEqual({ title: 'before the outage' });
    await memory.save([userMessage('after the outage')]);

    const fresh = await natsBackend({ servers: server.url, bucket: 'outage' });
    try {
      const info = await fresh.inspect('outage-1');
      expect(info).toMatchObject({ messages: 5, stored: 5, meta: { title: 'before the outage' } });
      expect(texts(await (await fresh.open('outage-1')).retrieve()).at(-1)).toBe(
        'after the outage',
      );
    } finally {
      await fresh.close();
    }
  });

  it('refuses to start on a server that does not answer, naming what it tried', async () => {
    const url = `nats://127.0.0.1:${await freePort()}`;
    const failure = await natsBackend({ servers: url, bucket: 'nowhere', timeoutMs: 500 }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(NatsRequestError);
    expect(failure).toBeInstanceOf(BackendUnavailableError);
    expect(failure).toMatchObject({ code: 'BACKEND_UNAVAILABLE', session: null });
    expect((failure as Error).message).toContain(`connect to ${url}`);
  });
});
