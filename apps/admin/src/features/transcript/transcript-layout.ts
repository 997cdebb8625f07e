import type { Message, StoredSnapshot, TranscriptEntry } from '../../lib/api-types';
import { messageKey } from '../../lib/message-view';

/** One thing the transcript draws, in order. */
export type TranscriptItem =
  | {
      kind: 'message';
      entry: TranscriptEntry;
      pinned: boolean;
      /** The results of this message's tool calls that are loaded, in call order. */
      toolResults: Message[];
    }
  | { kind: 'boundary'; coveredCount: number; coveredTokens: number; pruned: boolean };

export interface TranscriptLayout {
  items: TranscriptItem[];
  /** Tool results by tool call id, folded into their calls. */
  results: Map<string, Message>;
}

/**
 * Lays out the loaded log: tool results folded into their calls (when the call is loaded), the
 * snapshot boundary after the last covered message (at the top when the covered messages were
 * pruned; not yet while covered messages are still being paged in), pinned messages marked.
 */
export function layoutTranscript(
  entries: readonly TranscriptEntry[],
  snapshot: StoredSnapshot | null,
  complete: boolean,
): TranscriptLayout {
  const calls = new Set<string>();
  for (const { message } of entries) for (const call of message.toolCalls ?? []) calls.add(call.id);
  const results = new Map<string, Message>();
  for (const { message } of entries) {
    if (message.role === 'tool' && message.toolCallId && calls.has(message.toolCallId)) {
      results.set(message.toolCallId, message);
    }
  }
  const pinnedKeys = new Set((snapshot?.pinned ?? []).map(messageKey));
  const items: TranscriptItem[] = [];
  let coveredCount = 0;
  let coveredTokens = 0;
  let boundaryPlaced = snapshot === null;
  const placeBoundary = () => {
    items.push({
      kind: 'boundary',
      coveredCount,
      coveredTokens,
      pruned: coveredCount === 0,
    });
    boundaryPlaced = true;
  };
  for (const entry of entries) {
    if (!boundaryPlaced && entry.cursor > snapshot!.upTo) placeBoundary();
    if (entry.covered) {
      coveredCount += 1;
      coveredTokens += entry.tokens;
    }
    const folded =
      entry.message.role === 'tool' &&
      entry.message.toolCallId !== undefined &&
      results.get(entry.message.toolCallId) === entry.message;
    if (!folded) {
      items.push({
        kind: 'message',
        entry,
        pinned: pinnedKeys.size > 0 && pinnedKeys.has(messageKey(entry.message)),
        toolResults: (entry.message.toolCalls ?? []).flatMap((call) => {
          const found = results.get(call.id);
          return found ? [found] : [];
        }),
      });
    }
  }
  if (!boundaryPlaced && complete) placeBoundary();
  return { items, results };
}
