import type { KV, NatsConnection } from 'nats';

/** The message id of a compare-and-swap of `key` on `revision` (the server drops a second one). */
export function casMessageId(key: string, revision: number): string {
  return `${key}@${revision}`;
}

/**
 * Bytes of one compare-and-swap write of `key` as the client and server count them: the value
 * plus the header block carrying the expected revision and the message id
 * (`NATS/1.0\r\n<name>: <value>\r\n…\r\n`).
 */
export function writeSizeBytes(valueBytes: number, revision: number, key: string): number {
  const block =
    'NATS/1.0\r\n' +
    `Nats-Expected-Last-Subject-Sequence: ${revision}\r\n` +
    `Nats-Msg-Id: ${casMessageId(key, revision)}\r\n` +
    '\r\n';
  return valueBytes + Buffer.byteLength(block);
}

/**
 * The server's `max_payload` as the connection behind `kv` reports it, or undefined when the KV
 * handle does not expose its connection (it is not part of the `KV` interface).
 */
export function connectionMaxPayload(kv: KV): number | undefined {
  const nc = (kv as { js?: { nc?: NatsConnection } }).js?.nc;
  const max = nc?.info?.max_payload;
  return typeof max === 'number' && max > 0 ? max : undefined;
}

/** The bucket's max value size in bytes, or undefined when it has none (`-1`). */
export async function bucketMaxValueSize(kv: KV): Promise<number | undefined> {
  const max = (await kv.status()).maxValueSize;
  return typeof max === 'number' && max > 0 ? max : undefined;
}

/** The smaller of the limits that are set. */
export function effectiveLimit(maxPayload: number, maxValueSize: number | undefined): number {
  return maxValueSize !== undefined ? Math.min(maxPayload, maxValueSize) : maxPayload;
}
