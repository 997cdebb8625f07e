/**
 * Compaction costs: token counting (cold: fresh counter and fresh message objects, so nothing is
 * cached; cached: the same objects counted again), counting one long text (ordinary words against
 * pathological runs of one character, ours against a bare `tiktoken` call), and a whole
 * compaction of a 10,000-message session with the extractive summariser, next to a plain
 * `retrieve` of that session; and counting 4 MB texts (the largest single message the admin API's
 * body limit lets through), counted async as the API does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { get_encoding } from 'tiktoken';
import {
  assistantMessage,
  ExtractiveSummarizer,
  SimpleMemory,
  SummaryCompactor,
  TokenCounter,
  toolResultMessage,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import { PATHOLOGICAL_TEXTS } from '../test/support/random-text';
import { seededRandom } from '../test/support/seeded-random';
import { benchSize } from './bench-size';
import { measure, measureEach, ratio, type BenchSuite } from './harness';

const COUNTED = benchSize(1_000, 100);
const SESSION = benchSize(10_000, 1_000);

function messages(count: number, salt: string): Message[] {
  return Array.from({ length: count }, (_, i) => {
    const text = `${salt} message ${i}: the user asks how to roll back the deployment of service ${i % 17} without losing the queue.`;
    if (i % 10 === 8) {
      return assistantMessage('', [
        {
          id: `c${i}`,
          type: 'function',
          function: { name: 'kubectl', arguments: `{"rollout":"undo","n":${i}}` },
        },
      ]);
    }
    if (i % 10 === 9) return toolResultMessage(`c${i - 1}`, `rolled back ${text}`);
    return i % 2 === 0 ? userMessage(text) : assistantMessage(text);
  });
}

/** `length` characters of random lowercase words, the same on every run. */
function randomWords(length: number): string {
  let state = 42;
  let text = '';
  while (text.length < length) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const word = (state % 9) + 1;
    for (let i = 0; i < word; i++) text += String.fromCharCode(97 + ((state >> (i + 3)) % 26));
    text += ' ';
  }
  return text.slice(0, length);
}

const LONG_TEXT = benchSize(64, 8) * 1024;
/** The bare tokenizer is quadratic on a run: measured on a quarter of the text, a few times. */
const BARE_RUN = LONG_TEXT / 4;

const MB = 1 << 20;
/** The admin API's body limit: the largest single message it lets through (quick mode: 1/16). */
const BODY_LIMIT = benchSize(4 * MB, MB / 16);
/** A size in KB or MB for a case name, such as `64 KB`. */
const size = (bytes: number) => (bytes >= MB ? `${bytes / MB} MB` : `${bytes / 1024} KB`);

/**
 * `length` characters of the README's words drawn at random (seeded): prose whose words repeat as
 * a real document's do, without repeating whole sentences.
 */
function shuffledWords(length: number): string {
  const words = readFileSync(join(__dirname, '../README.md'), 'utf8').split(/\s+/).filter(Boolean);
  const next = seededRandom(3);
  const parts: string[] = [];
  for (let size = 0; size < length;) {
    const word = words[Math.floor(next() * words.length)]!;
    parts.push(word);
    size += word.length + 1;
  }
  return parts.join(' ').slice(0, length);
}

/**
 * 4 MB texts, counted async as the API does, each with a fresh counter and a fresh copy so no
 * cache carries over: the pathological kinds (pieces that never repeat, runs of one character)
 * and prose.
 */
async function bodyLimitCases() {
  const texts: Record<string, () => string> = {
    ...Object.fromEntries(
      Object.entries(PATHOLOGICAL_TEXTS).map(([kind, make]) => [kind, () => make(BODY_LIMIT)]),
    ),
    'README words in random order': () => shuffledWords(BODY_LIMIT),
  };
  const results = [];
  for (const [kind, make] of Object.entries(texts)) {
    results.push(
      await measureEach(
        `count ${size(BODY_LIMIT)} of ${kind}, async`,
        'TokenCounter (o200k)',
        async () => ({ counter: new TokenCounter(), message: userMessage(make()) }),
        ({ counter, message }) => counter.countAsync([message]),
        2,
      ),
    );
  }
  return results;
}

async function longTextCases() {
  const words = randomWords(LONG_TEXT);
  const spaces = ' '.repeat(LONG_TEXT);
  const base64 = Buffer.alloc((LONG_TEXT / 4) * 3).toString('base64');
  const o200k = get_encoding('o200k_base');
  const bare = (text: string) => o200k.encode_ordinary(text).length;
  const ours = (text: string) => new TokenCounter().countText(text);
  const once = (text: string, count: (text: string) => number) => async () => {
    count(text);
  };
  return [
    await measure(
      `count ${size(LONG_TEXT)} of random words`,
      'TokenCounter (o200k)',
      once(words, ours),
    ),
    await measure(`count ${size(LONG_TEXT)} of random words`, 'bare tiktoken', once(words, bare)),
    await measure(`count ${size(LONG_TEXT)} of spaces`, 'TokenCounter (o200k)', once(spaces, ours)),
    await measure(
      `count ${size(LONG_TEXT)} of base64 zeros`,
      'TokenCounter (o200k)',
      once(base64, ours),
    ),
    await measureEach(
      `count ${size(BARE_RUN)} of spaces`,
      'bare tiktoken',
      async () => ' '.repeat(BARE_RUN),
      async (text) => bare(text),
      3,
    ),
  ];
}

export const suite: BenchSuite = {
  name: 'Compaction',
  async run() {
    let round = 0;
    const cold = await measure(`count ${COUNTED} messages, cold`, 'TokenCounter (o200k)', () => {
      new TokenCounter().count(messages(COUNTED, `r${++round}`));
    });
    const counter = new TokenCounter();
    const reused = messages(COUNTED, 'cached');
    counter.count(reused);
    const cached = await measure(`count ${COUNTED} messages, cached`, 'TokenCounter (o200k)', () =>
      counter.count(reused),
    );

    const log = messages(SESSION, 'session');
    const prepare = async () => {
      const store = new SimpleMemory(SESSION);
      await store.save(log);
      return store;
    };
    const store = await prepare();
    const retrieve = await measure(`retrieve ${SESSION / 1000}k messages`, 'SimpleMemory', () =>
      store.retrieve(),
    );
    const compactor = new SummaryCompactor(new ExtractiveSummarizer(), { keepRecent: 20 });
    const compaction = await measureEach(
      `compact ${SESSION / 1000}k messages (extractive)`,
      'SummaryCompactor',
      prepare,
      (fresh) => compactor.compact(fresh, { thresholdTokens: 1 }),
      10,
    );
    const [words, bareWords, spaces, base64, bareSpaces] = await longTextCases();
    const bodyLimit = await bodyLimitCases();
    return {
      results: [
        cold,
        cached,
        words!,
        bareWords!,
        spaces!,
        base64!,
        bareSpaces!,
        ...bodyLimit,
        retrieve,
        compaction,
      ],
      notes: [
        `${size(LONG_TEXT)} of one character counts in ${spaces!.meanMs.toFixed(1)} ms (${ratio(spaces!.meanMs, words!.meanMs)} random words); the bare tokenizer needs ${bareSpaces!.meanMs.toFixed(0)} ms for a quarter of it`,
        `token counting: ${Math.round(cold.opsPerSec * COUNTED).toLocaleString('en-US')} messages/s cold, ${Math.round(cached.opsPerSec * COUNTED).toLocaleString('en-US')} messages/s cached (${ratio(cached.opsPerSec, cold.opsPerSec)})`,
        `the slowest ${size(BODY_LIMIT)} text counts in ${Math.max(...bodyLimit.map((m) => m.meanMs)).toFixed(0)} ms, yielding to the event loop every 5 ms`,
        `one compaction of ${SESSION.toLocaleString('en-US')} messages costs ${ratio(compaction.meanMs, retrieve.meanMs)} a plain retrieve (cold token counts included)`,
      ],
    };
  },
};
