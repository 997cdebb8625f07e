import type { MessageRange, SerializedValue } from '../core/checkpoint-storage.interface';

/** The serializer type of a `messages` blob that refers to where the thread's messages are kept. */
export const MESSAGE_LOG_REF_TYPE = 'agent-memory/message-log-ref';

/**
 * Where a message of a thread is kept: `session` at a cursor of the session with the thread's id
 * (our messages, read back through the `/langchain` converters), `log` at a position of the
 * thread's message log in the checkpoint storage (LangGraph's serialized form, for messages the
 * converters do not give back exactly and for threads without a session).
 */
export type MessageSource = 'session' | 'log';

/** A run of consecutive positions of one source: `[source, first, last]`, inclusive. */
export type MessageSegment = readonly [source: MessageSource, first: number, last: number];

/** One message's place: its source and its position there. */
export type MessagePlace = readonly [source: MessageSource, position: number];

/** What a checkpoint stores for its root `messages` channel instead of the messages. */
export interface MessageRef {
  /** Where the channel's messages are, in the channel's order. */
  segments: MessageSegment[];
  /** How many messages the channel holds. */
  count: number;
  /** The chain of the channel's messages (see `chainsOf`); `''` when empty. */
  chain: string;
}

/** The places of `places` as segments, consecutive positions of one source merged. */
export function segmentsOf(places: readonly MessagePlace[]): MessageSegment[] {
  const segments: MessageSegment[] = [];
  for (const [source, position] of places) {
    const last = segments.at(-1);
    if (last && last[0] === source && last[2] + 1 === position) {
      segments[segments.length - 1] = [source, last[1], position];
    } else {
      segments.push([source, position, position]);
    }
  }
  return segments;
}

/** Every place a reference's segments cover, in order. */
export function placesOf(ref: MessageRef): MessagePlace[] {
  return ref.segments.flatMap(([source, first, last]) =>
    Array.from({ length: last - first + 1 }, (_, i): MessagePlace => [source, first + i]),
  );
}

/** The ranges of one source in a reference, in order. */
export function rangesOf(ref: MessageRef, source: MessageSource): MessageRange[] {
  return ref.segments
    .filter((segment) => segment[0] === source)
    .map(([, first, last]): MessageRange => [first, last]);
}

/** Encodes a reference as a blob value. */
export function encodeRef(ref: MessageRef): SerializedValue {
  return { type: MESSAGE_LOG_REF_TYPE, data: new TextEncoder().encode(JSON.stringify(ref)) };
}

/** Decodes what {@link encodeRef} wrote. */
export function decodeRef(value: SerializedValue): MessageRef {
  return JSON.parse(new TextDecoder().decode(value.data)) as MessageRef;
}
