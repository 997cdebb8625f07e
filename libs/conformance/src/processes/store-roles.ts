/**
 * What a store process of a cross-process test does once its store is open: the roles the
 * package's processes suite runs, shared with the project's own store processes (which add roles
 * of their own).
 */
import {
  ConcurrentUpdateError,
  ExtractiveSummarizer,
  MemoryError,
  SummaryCompactor,
  assistantMessage,
  userMessage,
  type CompactionResult,
  type Message,
  type SnapshotStore,
} from '@agent-memory/memory';
import type { RacerResult, StoreProcessRole, WriterResult } from './store-process';

/** Turn `i` of writer `writer`: `w<writer>-q<i>`, `w<writer>-a<i>`. */
export const turnOf = (writer: string, i: number): Message[] => [
  userMessage(`w${writer}-q${i}`),
  assistantMessage(`w${writer}-a${i}`),
];

/** Saves `turns` turns in order, retrying each save a concurrent writer made it lose. */
async function write(memory: SnapshotStore, writer: string, turns: number): Promise<WriterResult> {
  let retries = 0;
  for (let i = 0; i < turns; i++) {
    const turn = turnOf(writer, i);
    for (;;) {
      try {
        await memory.save(turn);
        break;
      } catch (error) {
        if (!(error instanceof ConcurrentUpdateError)) throw error;
        retries++;
      }
    }
  }
  return { writer, retries };
}

/** Saves a snapshot with `prev` null: won, or lost with the error's code. */
async function race(memory: SnapshotStore, upTo: number, summary: string): Promise<RacerResult> {
  try {
    await memory.saveSnapshot({ summary }, upTo, null);
    return { outcome: 'won' };
  } catch (error) {
    if (!(error instanceof MemoryError)) throw error;
    return { outcome: 'lost', code: error.code };
  }
}

/** Compacts the session once with the offline summarizer, keeping `keepRecent` messages. */
function compact(memory: SnapshotStore, keepRecent: number): Promise<CompactionResult> {
  const compactor = new SummaryCompactor(new ExtractiveSummarizer(), { keepRecent });
  return compactor.compact(memory, { thresholdTokens: 1 });
}

/**
 * Plays `role` on `memory` with the role's arguments.
 * @throws Error for a role this module does not know.
 */
export function playStoreRole(
  memory: SnapshotStore,
  role: StoreProcessRole,
  args: readonly string[],
): Promise<unknown> {
  switch (role) {
    case 'writer':
      return write(memory, args[0]!, Number(args[1]));
    case 'snapshot-racer':
      return race(memory, Number(args[0]), args[1]!);
    case 'compactor':
      return compact(memory, Number(args[0]));
    default:
      throw new Error(`unknown role "${String(role)}"`);
  }
}
