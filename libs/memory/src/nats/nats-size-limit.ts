import type { KV, NatsConnection } from 'nats';

/** NATS's default `max_payload`: the limit used when neither an override nor the connection says. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

const HEADER_NAME = 'Nats-Expected-Last-Subject-Sequence';

/**
 * Bytes of one compare-and-swap write as the client and server count them: the value plus the
 * header block carrying the expected revision (`NATS/1.0\r\n<name>: <rev>\r\n\r\n`).
 */
export function writeSizeBytes(valueBytes: number, revision: number): number {
  return valueBytes + `NATS/1.0\r\n${HEADER_NAME}: ${revision}\r\n\r\n`.length;
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
