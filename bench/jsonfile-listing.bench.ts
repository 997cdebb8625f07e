/**
 * Listing a JSON-file folder whose sessions hold huge last batches: six sessions in log form whose
 * last save was 240,000 small parts (one message of 240,000 empty text parts), among 200 small
 * ones, and `list({ limit: 50 })` (the newest 50, what `GET /api/sessions?limit=50` asks). A list
 * reads each session's head and the last bytes of its log, never a message, so the huge batches
 * cost nothing. Each list runs on a fresh backend (no parsed session cached) and on a warm one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonFileBackend, userMessage, type Message } from '@agent-memory/memory';
import { measure, type BenchResult, type BenchSuite } from './harness';

const HUGE_SESSIONS = 6;
const SMALL_SESSIONS = 200;
const PARTS = 240_000;
const TARGET_MS = 50;

/** One user message of `PARTS` empty text parts (about 3.7 MB of JSON). */
function hugeBatch(): Message[] {
  return [
    { role: 'user', parts: Array.from({ length: PARTS }, () => ({ type: 'text', text: '' })) },
  ];
}

export const suite: BenchSuite = {
  name: 'JSON-file listing with huge last batches',
  async run() {
    const dir = await mkdtemp(join(tmpdir(), 'agent-memory-bench-listing-'));
    try {
      const writer = jsonFileBackend({ dir, minFreeBytes: 0 });
      for (let i = 0; i < SMALL_SESSIONS; i++) {
        await (await writer.open(`small-${i}`)).save([userMessage(`hello ${i}`)]);
      }
      const batch = hugeBatch();
      // Written last, so they are among the newest 50.
      for (let i = 0; i < HUGE_SESSIONS; i++) {
        const memory = await writer.open(`huge-${i}`);
        await memory.setMeta('title', `huge ${i}`);
        await memory.save([userMessage('before')]);
        await memory.save(batch);
      }
      const check = await jsonFileBackend({ dir }).list({ limit: 50 });
      const huge = check.items.filter((item) => item.id.startsWith('huge-'));
      if (huge.length !== HUGE_SESSIONS || huge.some((item) => item.messages !== 2)) {
        throw new Error('the listing does not show the huge sessions with their 2 messages');
      }
      const results: BenchResult[] = [
        await measure('list newest 50 (fresh backend)', 'agent-memory', () =>
          jsonFileBackend({ dir }).list({ limit: 50 }),
        ),
      ];
      const warm = jsonFileBackend({ dir });
      results.push(
        await measure('list newest 50 (warm backend)', 'agent-memory', () =>
          warm.list({ limit: 50 }),
        ),
      );
      const worst = Math.max(...results.map((r) => r.meanMs));
      return {
        results,
        notes: [
          `${HUGE_SESSIONS} sessions whose last save was ${PARTS.toLocaleString('en-US')} parts, among ${SMALL_SESSIONS} small ones`,
          `target: the newest 50 under ${TARGET_MS} ms: ${worst < TARGET_MS ? 'met' : 'NOT met'} (${worst.toFixed(2)} ms)`,
        ],
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};
