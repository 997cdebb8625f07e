import { SessionTooLargeError, userMessage, type Message } from '@agent-memory/memory';
import { NatsMemory, natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import { connect, type KV, type NatsConnection } from 'nats';
import { EMPTY_DOCUMENT, appendToDocument, encodeDocument } from '../core/session-document';
import { TestBuckets, useSmallPayloadNats } from '@agent-memory/test-support/nats';
import { testNatsUrl } from '@agent-memory/test-support/services';

const MiB = 1024 * 1024;
let counter = 0;
/** Ids of one length, so that every first write carries a header of the same size. */
const newId = () => `size-${process.pid}-${String(++counter).padStart(3, '0')}`;

/**
 * Bytes of a first write of a session holding `messages`: the value plus the header block with
 * the expected revision (0) and the message id (`<key>@0`), for a key as long as {@link newId}'s,
 * with the save time the store records.
 */
function firstWriteBytes(messages: Message[]): number {
  // The batch's save time is in the value; every such time is as long as this one.
  const savedAt = new Date().toISOString();
  const value = JSON.stringify(
    encodeDocument(appendToDocument(EMPTY_DOCUMENT, messages, undefined, savedAt)),
  );
  const key = `size-${process.pid}-000`;
  const header = `NATS/1.0\r\nNats-Expected-Last-Subject-Sequence: 0\r\nNats-Msg-Id: ${key}@0\r\n\r\n`;
  return Buffer.byteLength(value) + header.length;
}

/** A one-message session whose first write is exactly `bytes` long. */
function messageFilling(bytes: number): Message {
  const overhead = firstWriteBytes([userMessage('')]);
  return userMessage('x'.repeat(bytes - overhead));
}

/** The stored entry's revision and bytes, to show that a refused write sent nothing. */
async function storedState(
  kv: KV,
  key: string,
): Promise<{ revision: number; bytes: string } | null> {
  const entry = await kv.get(key);
  return entry && { revision: entry.revision, bytes: Buffer.from(entry.value).toString('base64') };
}

describe('NatsMemory size limit', () => {
  describe('on a server with the default max_payload', () => {
    const buckets = new TestBuckets('size');
    let backend: NatsBackend;
    let nc: NatsConnection;
    beforeAll(async () => {
      backend = await natsBackend({ servers: testNatsUrl(), bucket: buckets.next() });
      nc = await connect({ servers: testNatsUrl() });
    });
    afterAll(async () => {
      await backend.close();
      await nc.close();
      await buckets.cleanup();
    });

    it('refuses a session growing past 1 MiB before sending, leaving the stored value as it was', async () => {
      const id = newId();
      const memory = await backend.open(id);
      await memory.save([userMessage('a'.repeat(1_000_000))]);
      const before = await storedState(backend.kv, id);

      const error = await memory.save([userMessage('b'.repeat(60_000))]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SessionTooLargeError);
      expect(error).toMatchObject({ code: 'SESSION_TOO_LARGE', session: id, limit: MiB });
      expect((error as SessionTooLargeError).size).toBeGreaterThan(MiB);
      expect((error as SessionTooLargeError).size).toBeLessThan(MiB + 20_000);
      expect(await storedState(backend.kv, id)).toEqual(before);
      expect((await backend.inspect(id))?.messages).toBe(1);
    });

    it('honours a bucket with a smaller max value size, read from the bucket', async () => {
      const bucket = buckets.next();
      const kv = await nc.jetstream().views.kv(bucket, { history: 1, maxValueSize: 2048 });
      const memory = await NatsMemory.open(kv, newId());
      await memory.save([messageFilling(2048)]);
      const before = await storedState(kv, memory.sessionId);
      await expect(memory.save([userMessage('one more')])).rejects.toMatchObject({
        code: 'SESSION_TOO_LARGE',
        limit: 2048,
      });
      expect(await storedState(kv, memory.sessionId)).toEqual(before);

      const bound = await natsBackend({ connection: nc, bucket });
      try {
        expect((await bound.status()).maxValueSize).toBe(2048);
        const otherId = newId();
        const other = await bound.open(otherId);
        await expect(other.save([messageFilling(2049)])).rejects.toMatchObject({
          limit: 2048,
          size: 2049,
        });
        expect(await bound.inspect(otherId)).toBeNull();
      } finally {
        await bound.close();
      }
      expect(nc.isClosed()).toBe(false);
    });

    it('takes a maxPayload override as the limit', async () => {
      const memory = await NatsMemory.open(backend.kv, newId(), { maxPayload: 1000 });
      await expect(memory.save([messageFilling(1001)])).rejects.toMatchObject({
        limit: 1000,
        size: 1001,
      });
      await memory.save([messageFilling(1000)]);
      expect(await memory.retrieve()).toHaveLength(1);
    });
  });

  describe('on a server with max_payload 4096', () => {
    const smallBackend = useSmallPayloadNats('small', 4096);

    it('accepts a write of exactly max_payload and refuses one byte more, sending nothing', async () => {
      const backend = smallBackend();
      expect(backend.connection.info?.max_payload).toBe(4096);
      const exact = await backend.open(newId());
      await exact.save([messageFilling(4096)]);
      expect(await exact.retrieve()).toEqual([messageFilling(4096)]);

      const overId = newId();
      const over = await backend.open(overId);
      const error = await over.save([messageFilling(4097)]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SessionTooLargeError);
      expect(error).toMatchObject({ session: overId, size: 4097, limit: 4096 });
      expect(await backend.kv.get(overId)).toBeNull();
    });
  });
});
