/**
 * Listing a JSON-file folder whose sessions hold huge last batches: six sessions in log form whose
 * last save was 240,000 small parts (240 messages of 1,000 empty text parts, the most a message
 * may hold), among 200 small ones, and `list({ limit: 50 })` (the newest 50, what `GET /api/sessions?limit=50` asks). A list
 * reads each session's head and the last bytes of its log, never a message, so the huge batches
 * cost nothing. Each list runs on a fresh backend (no parsed session cached) and on a warm one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  jsonFileBackend,
  MAX_MESSAGE_PARTS,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import { benchSize } from './bench-size';
import { measure, type BenchResult, type BenchSuite } from './harness';

const HUGE_SESSIONS = benchSize(6, 2);
const SMALL_SESSIONS = benchSize(200, 20);
const PARTS = benchSize(240_000, 20_000);
const TARGET_MS = 50;

/** Messages in one huge batch: `PARTS` parts in all, as many in each as a message may hold. */
const HUGE_MESSAGES = Math.ceil(PARTS / MAX_MESSAGE_PARTS);

/** User messages of `PARTS` empty text parts in all (about 3.7 MB of JSON in a full run). */
function hugeBatch(): Message[] {
  return Array.from({ length: HUGE_MESSAGES }, () => ({
    role: 'user',
    parts: Array.from({ length: MAX_MESSAGE_PARTS }, () => ({ type: 'text', text: '' })),
  }));
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
      const stored = 1 + HUGE_MESSAGES;
      if (huge.length !== HUGE_SESSIONS || huge.some((item) => item.messages !== stored)) {
        throw new Error(
          `the listing does not show the huge sessions with their ${stored} messages`,
        );
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
          `${HUGE_SESSIONS} sessions whose last save was ${PARTS.toLocaleString('en-US')} parts (${HUGE_MESSAGES} messages), among ${SMALL_SESSIONS} small ones`,
          `target: the newest 50 under ${TARGET_MS} ms: ${worst < TARGET_MS ? 'met' : 'NOT met'} (${worst.toFixed(2)} ms)`,
        ],
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};
