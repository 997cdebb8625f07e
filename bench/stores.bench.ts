/**
 * The in-process store against session size: `save` of one turn (2 messages) and `retrieve` on
 * sessions of 100, 1,000 and 10,000 messages. SimpleMemory gets the session size as its capacity
 * (FIFO eviction keeps it there while `save` is measured). The JSON-file store has its own suite
 * against a bare file baseline: `jsonfile.bench.ts`.
 */
import {
  assistantMessage,
  SimpleMemory,
  userMessage,
  type Message,
  type SessionStore,
} from '@agent-memory/memory';
import { measure, type BenchResult, type BenchSuite } from './harness';

const SIZES = [100, 1_000, 10_000];
const TIME_MS = 500;

const turn: Message[] = [
  userMessage('What changed since yesterday?'),
  assistantMessage('Two tests were fixed.'),
];

function prefill(size: number): Message[] {
  return Array.from({ length: size }, (_, i) =>
    i % 2 === 0
      ? userMessage(`question ${i}: how do I configure the store?`)
      : assistantMessage(`answer ${i}: pass it in forRoot.`),
  );
}

interface Subject {
  name: string;
  /** A store holding `size` messages, and a save that keeps its size about constant. */
  setup(size: number): Promise<{ store: SessionStore; save: () => Promise<unknown> }>;
}

function subjects(): Subject[] {
  return [
    {
      name: 'SimpleMemory',
      async setup(size) {
        const store = new SimpleMemory(size);
        await store.save(prefill(size));
        return { store, save: () => store.save(turn) };
      },
    },
  ];
}

export const suite: BenchSuite = {
  name: 'Stores: simple',
  async run() {
    const results: BenchResult[] = [];
    const notes: string[] = [];
    for (const subject of subjects()) {
      const byOp: Record<string, BenchResult[]> = { save: [], retrieve: [] };
      for (const size of SIZES) {
        const { store, save } = await subject.setup(size);
        const label = size.toLocaleString('en-US');
        const retrieved = await measure(
          `retrieve @${label}`,
          subject.name,
          () => store.retrieve(),
          { timeMs: TIME_MS },
        );
        const saved = await measure(`save 1 turn @${label}`, subject.name, save, {
          timeMs: TIME_MS,
        });
        byOp.retrieve!.push(retrieved);
        byOp.save!.push(saved);
        results.push(retrieved, saved);
      }
      for (const [op, [small, , large]] of Object.entries(byOp)) {
        notes.push(
          `${subject.name} ${op}: one op on 10,000 messages takes ${(large!.meanMs / small!.meanMs).toFixed(1)}× ` +
            `the time it takes on 100 (${large!.meanMs.toFixed(3)} ms vs ${small!.meanMs.toFixed(3)} ms)`,
        );
      }
    }
    return { results, notes };
  },
};
