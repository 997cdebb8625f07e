import type { Entry } from '../core/memory.interface';

/**
 * How many of the tail's entries a snapshot should cover so that the last `keepRecent` stay as
 * they are, moved earlier so an assistant message with tool calls and its tool results always
 * stay on the same side of the cut (a provider rejects a result without its call).
 * Returns 0 when there is nothing to cover.
 */
export function coverCount(tail: readonly Entry[], keepRecent: number): number {
  let cover = Math.max(0, tail.length - keepRecent);
  // The first kept entry must not be a tool result, and the last covered one must not be a call
  // still waiting for its results.
  while (cover > 0 && (tail[cover]?.message.role === 'tool' || (tail[cover - 1]!.message.toolCalls?.length ?? 0) > 0)) {
    cover--;
  }
  return cover;
}
