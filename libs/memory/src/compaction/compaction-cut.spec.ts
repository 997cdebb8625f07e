import { assistantMessage, toolResultMessage, userMessage, type Message } from '../core/message';
import { coverCount } from './compaction-cut';

const entries = (messages: Message[]) => messages.map((message, i) => ({ cursor: i + 1, message }));
const call = (id: string) =>
  assistantMessage('', [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }]);

describe('coverCount', () => {
  it('keeps the last keepRecent entries', () => {
    expect(
      coverCount(
        entries([userMessage('1'), userMessage('2'), userMessage('3'), userMessage('4')]),
        1,
      ),
    ).toBe(3);
    expect(coverCount(entries([userMessage('1')]), 1)).toBe(0);
    expect(coverCount(entries([userMessage('1')]), 5)).toBe(0);
  });

  it('moves the cut before a tool call whose results would be kept', () => {
    const tail = entries([
      userMessage('go'),
      call('c1'),
      toolResultMessage('c1', 'a'),
      toolResultMessage('c1', 'b'),
      assistantMessage('done'),
    ]);
    // keepRecent 2 would keep [result b, done]: the call and both results move to the kept side.
    expect(coverCount(tail, 2)).toBe(1);
    expect(coverCount(tail, 3)).toBe(1);
    expect(coverCount(tail, 1)).toBe(4);
  });

  it('never covers a call that is still waiting for its results', () => {
    expect(coverCount(entries([userMessage('go'), call('c1'), userMessage('next')]), 1)).toBe(1);
  });

  it('keeps a call with its result when other messages sit between them', () => {
    // c1 is answered only after a user message: covering the call would orphan the kept result.
    const tail = entries([
      userMessage('go'),
      call('c1'),
      userMessage('meanwhile'),
      assistantMessage('hm'),
      toolResultMessage('c1', 'late'),
      assistantMessage('done'),
    ]);
    expect(coverCount(tail, 2)).toBe(1);
    expect(coverCount(tail, 1)).toBe(5);
  });

  it('covers everything when keepRecent is 0 and no pair is open', () => {
    const tail = entries([
      userMessage('go'),
      call('c1'),
      toolResultMessage('c1', 'r'),
      assistantMessage('done'),
    ]);
    expect(coverCount(tail, 0)).toBe(4);
    expect(coverCount(entries([]), 0)).toBe(0);
  });
});
