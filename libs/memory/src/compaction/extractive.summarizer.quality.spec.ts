import { readFileSync } from 'node:fs';
import { fixturePath } from '@agent-memory/test-support/paths';
import { SUMMARY_PREFIX } from '../core/snapshot';
import { assistantMessage, textContent, userMessage, type Message } from '../core/message';
import { SimpleMemory } from '../simple/simple.store';
import { ExtractiveSummarizer } from './extractive.summarizer';
import { SummaryCompactor } from './summary-compactor';
import { TokenCounter } from '../token-count/token-counter';

/** The summary may take at most this share of the tokens of the messages it covers. */
const MAX_SUMMARY_SHARE = 0.35;
const KEEP_RECENT = 6;

/**
 * Each session with the named facts (numbers, names) said in its last covered turns, picked by
 * hand: the summary must keep them, since the model no longer sees those messages.
 */
const sessions = [
  {
    name: 'planning',
    recentFacts: ['6444', '2556', '216', '2340', 'Moov Hotel', 'agenda for day one'],
  },
  {
    name: 'support-with-tools',
    recentFacts: ['SORRY-7Q2K', '30 June 2027', '17:00', 'Lena', '20 euro'],
  },
  {
    name: 'technical-thread',
    recentFacts: ['max_client_conn', '48', '100', '45 spare', '35', 'cl_waiting'],
  },
];

function load(name: string): Message[] {
  return (
    JSON.parse(readFileSync(fixturePath('sessions', `${name}.json`), 'utf8')) as {
      messages: Message[];
    }
  ).messages;
}

/** The summary's items without headings and bullets, one sentence each. */
function summarySentences(summary: string): string[] {
  return summary
    .split('\n')
    .filter((line) => !/^[A-Z][a-z ]+:$/.test(line) && !line.startsWith('Tools used: '))
    .map((line) => line.replace(/^- /, '').replace(/^(Goal|Earlier): /, ''))
    .flatMap((line) => line.split(/(?<=[.!?])\s+/))
    .map((sentence) => sentence.toLowerCase().trim());
}

async function compactSession(messages: Message[], keepRecent = KEEP_RECENT) {
  const store = new SimpleMemory(1000);
  await store.save(messages);
  const compactor = new SummaryCompactor(new ExtractiveSummarizer(), { keepRecent });
  const result = await compactor.compact(store, { thresholdTokens: 1 });
  const { snapshot, tail } = await store.loadSnapshot();
  return { result, snapshot: snapshot!, tail, store, compactor };
}

describe('ExtractiveSummarizer on realistic sessions', () => {
  const counter = new TokenCounter();

  describe.each(sessions)('$name', ({ name, recentFacts }) => {
    const messages = load(name);

    it('saves a snapshot that makes the context clearly smaller', async () => {
      const { result } = await compactSession(messages);
      expect(result.compacted).toBe(true);
      expect(result.tokensAfter).toBeLessThan(result.tokensBefore * 0.7);
    });

    it(`keeps the summary within ${MAX_SUMMARY_SHARE * 100}% of the covered tokens`, async () => {
      const { snapshot, tail } = await compactSession(messages);
      const covered = messages.slice(0, messages.length - tail.length);
      const summaryTokens = counter.count([userMessage(SUMMARY_PREFIX + snapshot.summary)]);
      expect(summaryTokens).toBeLessThanOrEqual(counter.count(covered) * MAX_SUMMARY_SHARE);
    });

    it('repeats no sentence, neither its own nor the pinned task', async () => {
      const { snapshot } = await compactSession(messages);
      const sentences = summarySentences(snapshot.summary);
      expect(new Set(sentences).size).toBe(sentences.length);
      const task = textContent(snapshot.pinned![0]!).toLowerCase();
      expect(snapshot.pinned![0]).toEqual(messages[0]);
      for (const sentence of sentences) expect(task).not.toContain(sentence);
      expect(snapshot.summary).not.toContain('Goal:');
    });

    it('keeps the named facts of the most recent covered turns, listed under Latest', async () => {
      const { snapshot } = await compactSession(messages);
      for (const fact of recentFacts) expect(snapshot.summary).toContain(fact);
      // The newest points come last: the list ends with a sentence of the last covered turn.
      const latest = snapshot.summary
        .split('Latest:\n')[1]!
        .split('\n')
        .filter((line) => line.startsWith('- '))
        .map((line) => line.slice(2).replace(/…$/, ''));
      const covered = messages.slice(0, messages.length - KEEP_RECENT);
      const lastTurn = covered
        .filter((m) => m.role === 'user' || m.role === 'assistant')
        .slice(-2)
        .map(textContent)
        .join(' ');
      expect(lastTurn).toContain(latest.at(-1));
    });

    it('stays deterministic and bounded when compacted again and again', async () => {
      const { store, compactor } = await compactSession(messages);
      const first = (await store.loadSnapshot()).snapshot!.summary;
      const again = await compactSession(messages);
      expect(again.snapshot.summary).toBe(first);
      for (let round = 0; round < 5; round++) {
        await store.save([
          userMessage(`Round ${round}: please add item ${round * 7 + 3} to the list for Quentin.`),
          assistantMessage(
            `Added item ${round * 7 + 3} for Quentin; the list now has ${round + 9} entries.`,
          ),
          userMessage('Thanks, what else is open?'),
          assistantMessage(`Only the review with Ines on day ${round + 12} is still open.`),
        ]);
        const result = await compactor.compact(store, { thresholdTokens: 1 });
        expect(result.compacted).toBe(true);
      }
      const summary = (await store.loadSnapshot()).snapshot!.summary;
      const sentences = summarySentences(summary);
      expect(new Set(sentences).size).toBe(sentences.length);
      expect(summary.length).toBeLessThan(3000);
      // The newest covered round's facts are in the summary, and replace the ones they update.
      expect(summary).toContain('Added item 24 for Quentin; the list now has 12 entries.');
      expect(summary).not.toContain('Added item 17 for Quentin');
      expect(summary).toContain('Only the review with Ines on day 14 is still open.');
      expect(summary).not.toContain('on day 13');
    });
  });

  /** The README's tour: a trip, the assistant's budget question, then a day-by-day walk. */
  describe('the tour session', () => {
    const tour = [
      userMessage('I am planning a trip to Lisbon in May.'),
      assistantMessage('Lovely! What is your budget?'),
      ...Array.from({ length: 12 }, (_, i) => [
        userMessage(`What should I see on day ${i + 1}?`),
        assistantMessage(`On day ${i + 1}, walk through Alfama.`),
      ]).flat(),
    ];

    it('keeps the goal, the open budget question and the latest plan of its six covered messages', async () => {
      const { result, snapshot } = await compactSession(tour, 20);
      expect(result.upTo).toBe(6);
      // The goal is the pinned task, in front of the model with the summary, not repeated in it.
      expect(snapshot.pinned).toEqual([tour[0]]);
      expect(snapshot.summary).toBe(
        [
          'Latest:',
          '- On day 2, walk through Alfama.',
          'Open questions:',
          '- What is your budget? (asked by the assistant)',
        ].join('\n'),
      );
    });

    it('states the goal itself when nothing is pinned', async () => {
      const summary = await new ExtractiveSummarizer().summarize({
        previous: null,
        messages: tour.slice(0, 6),
      });
      expect(summary).toContain('Goal: I am planning a trip to Lisbon in May.');
      expect(summary).toContain('- What is your budget? (asked by the assistant)');
      expect(summary).toContain('- On day 2, walk through Alfama.');
      expect(summary).not.toContain('day 1');
    });
  });
});
