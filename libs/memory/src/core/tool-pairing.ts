import type { Message } from './message';

/**
 * Drops tool results whose tool call is not in `messages` (FIFO eviction or a cut can orphan
 * them, and providers reject such a history). Returns `messages` itself when nothing is dropped.
 */
export function dropOrphanedToolResults(messages: Message[]): Message[] {
  const calls = new Set<string>();
  let orphans = false;
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) calls.add(call.id);
    if (message.role === 'tool' && !calls.has(message.toolCallId ?? '')) orphans = true;
  }
  if (!orphans) return messages;
  const seen = new Set<string>();
  return messages.filter((message) => {
    for (const call of message.toolCalls ?? []) seen.add(call.id);
    return message.role !== 'tool' || seen.has(message.toolCallId ?? '');
  });
}
