import type { Message } from '../core/message';

/**
 * The part of an interrupted turn's messages worth saving: everything except assistant tool calls
 * whose results were not all produced (and the partial results of those calls), since providers
 * reject a tool call without its results.
 */
export function answeredToolExchanges(messages: readonly Message[]): Message[] {
  const answered = new Set<string>();
  for (const message of messages) {
    if (message.role === 'tool' && message.toolCallId) answered.add(message.toolCallId);
  }
  const dropped = new Set<string>();
  for (const message of messages) {
    const calls = message.toolCalls ?? [];
    if (calls.some((call) => !answered.has(call.id)))
      for (const call of calls) dropped.add(call.id);
  }
  if (dropped.size === 0) return [...messages];
  return messages.filter(
    (message) =>
      !(message.toolCalls ?? []).some((call) => dropped.has(call.id)) &&
      !(message.role === 'tool' && dropped.has(message.toolCallId ?? '')),
  );
}
