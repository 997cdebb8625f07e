/**
 * NATS helpers for tests: a unique KV bucket per test (test files run in parallel on one server)
 * and their removal afterwards; a server with a small `max_payload`.
 */
import { connect } from 'nats';
import { natsBackend, type NatsBackend } from '../../libs/memory/src/nats/nats.backend';
import { startThrowawayNats, testNatsUrl, type ThrowawayServer } from './services';

/** Hands out bucket names no other test uses and deletes their KV streams on `cleanup()`. */
export class TestBuckets {
  private readonly created = new Set<string>();
  private counter = 0;

  constructor(
    private readonly prefix = 'test',
    /** The server the buckets live on. Default {@link testNatsUrl}. */
    private readonly url = testNatsUrl(),
  ) {}

  /** A fresh bucket name (the bucket itself is created by whoever opens it). */
  next(): string {
    const name = `${this.prefix}_${process.pid}_${Date.now().toString(36)}_${++this.counter}`;
    this.created.add(name);
    return name;
  }

  /** Deletes the KV stream (and those next to it) of every bucket handed out (those never created are skipped). */
  async cleanup(): Promise<void> {
    if (this.created.size === 0) return;
    const nc = await connect({ servers: this.url });
    try {
      const jsm = await nc.jetstreamManager();
      for (const bucket of this.created) {
        await jsm.streams.delete(`KV_${bucket}`).catch(() => undefined);
        // The audit log's stream, job bucket and lease bucket next to it, when they were made.
        await jsm.streams.delete(`AUDIT_${bucket}`).catch(() => undefined);
        await jsm.streams.delete(`KV_${bucket}_jobs`).catch(() => undefined);
        await jsm.streams.delete(`KV_${bucket}_leases`).catch(() => undefined);
      }
      this.created.clear();
    } finally {
      await nc.close();
    }
  }
}

/**
 * For the enclosing `describe`: a throwaway NATS server that takes messages of at most
 * `maxPayload` bytes, and a backend on a fresh bucket of it, both closed after its tests.
 * @returns the backend (call it inside the tests, once `beforeAll` has run).
 */
export function useSmallPayloadNats(prefix: string, maxPayload: number): () => NatsBackend {
  const buckets = new TestBuckets(prefix);
  let server: ThrowawayServer;
  let backend: NatsBackend;
  beforeAll(async () => {
    server = await startThrowawayNats({ maxPayload });
    backend = await natsBackend({ servers: server.url, bucket: buckets.next() });
  });
  afterAll(async () => {
    await backend.close();
    await server.dispose();
  });
  return () => backend;
}
