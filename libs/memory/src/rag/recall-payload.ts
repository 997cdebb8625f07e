import type { Cursor } from '../core/memory.interface';
import type { Message, Role } from '../core/message';
import { textContent } from '../core/message';

/** Longest text kept in a vector's payload (characters); the log keeps the whole message. */
export const MAX_PAYLOAD_TEXT_CHARS = 4000;

/** What recall keeps with each message vector. */
export interface MessagePayload {
  kind: 'message';
  role: Role;
  text: string;
  /**
   * ISO time the message's batch was saved (the store's `Entry.savedAt`); absent when the store
   * does not know it. Vectors indexed by earlier versions hold the time they were indexed.
   */
  at?: string;
  /** Reading the log after this cursor (null: from its start) reaches the message… */
  windowAfter: Cursor | null;
  /** …after this many entries: its neighbours before it. */
  before: number;
}

/** The id of a message's vector. */
export function messageVectorId(sessionId: string, cursor: Cursor): string {
  return `${sessionId}#${cursor}`;
}

/**
 * The text recall embeds for a message, or null when it has none worth embedding: user and
 * assistant text; with `includeTools`, tool results and the names and arguments of tool calls.
 */
export function embeddableText(message: Message, includeTools: boolean): string | null {
  if (message.role === 'system') return null;
  if (message.role === 'tool' && !includeTools) return null;
  let text = textContent(message).trim();
  if (includeTools && message.toolCalls?.length) {
    const calls = message.toolCalls.map((c) => `${c.function.name}(${c.function.arguments})`);
    text = [text, ...calls].filter(Boolean).join('\n');
  }
  return text === '' ? null : text;
}

/** Reads a payload written by the indexer; null when it is not one. */
export function asMessagePayload(payload: Record<string, unknown>): MessagePayload | null {
  return payload.kind === 'message' && typeof payload.text === 'string'
    ? (payload as unknown as MessagePayload)
    : null;
}
