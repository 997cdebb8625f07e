import type { Entry } from '../core/memory.interface';

/**
 * How many of the tail's entries a snapshot should cover so that the last `keepRecent` stay as
 * they are, moved earlier so an assistant message with tool calls and its tool results always
 * stay on the same side of the cut (a provider rejects a result without its call): the first kept
 * entry is never a tool result, the last covered one never a tool call, and no kept result
 * answers a covered call (also when other messages sit between a call and its result).
 * Returns 0 when there is nothing to cover.
 */
export function coverCount(tail: readonly Entry[], keepRecent: number): number {
  const callAt = new Map<string, number>();
  tail.forEach((entry, index) => {
    for (const call of entry.message.toolCalls ?? []) callAt.set(call.id, index);
  });
  let cover = Math.max(0, tail.length - keepRecent);
  for (;;) {
    let next = cover;
    while (
      next > 0 &&
      (tail[next]?.message.role === 'tool' || (tail[next - 1]!.message.toolCalls?.length ?? 0) > 0)
    ) {
      next--;
    }
    for (let index = next; index < tail.length; index++) {
      const message = tail[index]!.message;
      const at = message.role === 'tool' ? callAt.get(message.toolCallId ?? '') : undefined;
      if (at !== undefined && at < next) next = at;
    }
    if (next === cover) return cover;
    cover = next;
  }
}
