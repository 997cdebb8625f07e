import { assistantMessage, userMessage, type Message } from '../core/message';
import { simpleBackend } from '../simple/simple.backend';
import { TokenCounter } from '../token-count/token-counter';
import { ExtractiveSummarizer } from './extractive.summarizer';
import { InlineCompactionRunner } from './inline-compaction.runner';
import { TALLY_CHECKS_BETWEEN_COUNTS } from './session-token-tally';

const turn = (i: number): Message[] => [
  userMessage(`question ${i}: what does the deploy script do when the health check fails?`),
  assistantMessage(`answer ${i}: it rolls back to the previous release and pages the on-call.`),
];

const counter = new TokenCounter();
const signal = new AbortController().signal;

/** A runner over a real in-process backend, with its threshold at `thresholdTokens`. */
function setup(thresholdTokens: number) {
  const backend = simpleBackend({ capacity: 10_000 });
  const runner = new InlineCompactionRunner(backend, {
    summarizer: new ExtractiveSummarizer(),
    keepRecent: 2,
    thresholdTokens,
  });
  /** Saves a turn and runs the check after it, told which messages the turn saved. */
  const turnAndCheck = async (sessionId: string, i: number) => {
    const messages = turn(i);
    await (await backend.open(sessionId)).save(messages);
    return runner.run({ sessionId }, signal, { added: messages });
  };
  return { backend, runner, turnAndCheck };
}

describe('InlineCompactionRunner, checks after turns', () => {
  it('adds each turn to the last count without reading the session', async () => {
    const { backend, turnAndCheck } = setup(1_000_000);
    await turnAndCheck('t.sum', 0);
    for (let i = 1; i < 5; i++) await turnAndCheck('t.sum', i);
    // Another writer adds a turn the checks are not told about: the tally does not see it...
    await (await backend.open('t.sum')).save(turn(99));
    const answered = await turnAndCheck('t.sum', 5);
    const stored = (await (await backend.open('t.sum')).loadSnapshot()).tail.map((e) => e.message);
    const exact = await counter.countAsync(stored);
    const withoutOther = exact - (await counter.countAsync(turn(99))) + 3;
    expect(answered.reason).toBe('below-threshold');
    // ...the answer is the counted total plus this process's turns (3 reply tokens each).
    expect(answered.tokensBefore).toBeGreaterThanOrEqual(withoutOther);
    expect(answered.tokensBefore).toBe(withoutOther + 5 * 3);
  });

  it(`counts the session again after ${TALLY_CHECKS_BETWEEN_COUNTS} answered checks, seeing other writers' messages`, async () => {
    const { backend, turnAndCheck } = setup(1_000_000);
    await turnAndCheck('t.recount', 0);
    await (await backend.open('t.recount')).save(turn(99));
    let last = await turnAndCheck('t.recount', 1);
    for (let i = 2; i <= TALLY_CHECKS_BETWEEN_COUNTS + 1; i++)
      last = await turnAndCheck('t.recount', i);
    const stored = (await (await backend.open('t.recount')).loadSnapshot()).tail;
    expect(last.tokensBefore).toBe(await counter.countAsync(stored.map((e) => e.message)));
  });

  it('compacts as soon as the added turns reach the threshold', async () => {
    const perTurn = (await counter.countAsync(turn(0))) - 3;
    const { backend, turnAndCheck } = setup(perTurn * 6 + 3);
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await turnAndCheck('t.reach', i));
    expect(results.slice(0, 5).map((r) => r.compacted)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(results[5]).toMatchObject({ compacted: true });
    const { snapshot, tail } = await (await backend.open('t.reach')).loadSnapshot();
    expect(snapshot).not.toBeNull();
    expect(tail).toHaveLength(2);
  });

  it('reads the session for a check without a hint, a forced one or a dry run', async () => {
    const { backend, runner, turnAndCheck } = setup(1_000_000);
    await turnAndCheck('t.full', 0);
    await (await backend.open('t.full')).save(turn(99));
    const stored = async () =>
      counter.countAsync(
        (await (await backend.open('t.full')).loadSnapshot()).tail.map((e) => e.message),
      );
    expect((await runner.run({ sessionId: 't.full' }, signal)).tokensBefore).toBe(await stored());
    await (await backend.open('t.full')).save(turn(98));
    const dry = await runner.run({ sessionId: 't.full', dryRun: true }, signal, {
      added: turn(98),
    });
    expect(dry.tokensBefore).toBe(await stored());
  });
});
