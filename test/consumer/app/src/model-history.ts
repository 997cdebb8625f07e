/**
 * The `/ai-sdk` adapter against the app's own `ai` (7, npm's current major): the published
 * declarations must agree with its `ModelMessage`, both ways.
 */
import type { ModelMessage } from 'ai';
import type { Message } from '@agent-memory/memory';
import { fromModelMessages, toModelMessages } from '@agent-memory/memory/ai-sdk';

/** A stored history as the `messages` of `generateText`. */
export function modelHistory(history: readonly Message[]): ModelMessage[] {
  return toModelMessages(history);
}

/** What `generateText` answered (`response.messages`), as messages to store. */
export function storedMessages(response: { messages: ModelMessage[] }): Message[] {
  return fromModelMessages(response.messages);
}
