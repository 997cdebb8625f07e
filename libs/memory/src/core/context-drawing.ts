import type { Snapshot } from './memory.interface';
import type { Message } from './message';
import { contextMessages } from './snapshot';

/**
 * The key under which a store lends how it draws its context from a snapshot and the messages
 * after it, to a decorator that builds the context from the store's snapshot state itself
 * (recall's `retrieve`). A store with the deprecated `summarization` option shows its summary as
 * a system message, not as {@link contextMessages} does. Not part of the public contract.
 */
export const DRAW_CONTEXT = Symbol('agent-memory.drawContext');

/** A store that says how it draws its context: see {@link DRAW_CONTEXT}. */
export interface DrawsContext {
  [DRAW_CONTEXT](snapshot: Snapshot | null, messages: readonly Message[]): Message[];
}

/** The context `session` draws from a snapshot and the messages after it. */
export function drawContext(
  session: object,
  snapshot: Snapshot | null,
  messages: readonly Message[],
): Message[] {
  const draw = (session as Partial<DrawsContext>)[DRAW_CONTEXT];
  return draw ? draw.call(session, snapshot, messages) : contextMessages(snapshot, messages);
}
