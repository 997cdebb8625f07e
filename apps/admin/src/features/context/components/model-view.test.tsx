import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { SessionContext } from '../../../lib/api-types';
import { ModelView } from './model-view';

const text = (value: string) => ({ type: 'text' as const, text: value });

const context: SessionContext = {
  messages: [
    {
      source: 'summary',
      cursor: null,
      message: { role: 'user', parts: [text('Summary of the conversation so far:\nrefund asked')] },
      tokens: 12,
    },
    {
      source: 'pinned',
      cursor: null,
      message: { role: 'user', parts: [text('Refund order 4711')] },
      tokens: 8,
    },
    {
      source: 'tail',
      cursor: 21,
      message: {
        role: 'assistant',
        parts: [],
        toolCalls: [{ id: 'c9', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      },
      tokens: 15,
    },
    {
      source: 'tail',
      cursor: 22,
      message: { role: 'tool', parts: [text('two charges')], toolCallId: 'c9' },
      tokens: 6,
    },
    {
      source: 'tail',
      cursor: 23,
      message: { role: 'assistant', parts: [text('<i>queued</i>')] },
      tokens: 5,
    },
  ],
  tokens: { summary: 12, pinned: 8, tail: 26, priming: 3, total: 49 },
  compactAt: 1000,
  snapshot: { summary: 'refund asked', pinned: [], upTo: 20, createdAt: new Date().toISOString() },
};

describe('ModelView', () => {
  it('shows exactly the context in order, each message with its source and tokens', () => {
    const { container } = render(<ModelView context={context} />);
    const cards = [...container.querySelectorAll('article')];
    expect(cards.map((card) => card.querySelector('.badge')!.textContent)).toEqual([
      'summary',
      'pinned',
      'recent',
      'recent',
    ]);
    expect(cards.map((card) => within(card).getByText(/tok$/).textContent)).toEqual([
      '12 tok',
      '8 tok',
      '15 tok',
      '5 tok',
    ]);
    expect(cards[0]!.textContent).toContain('Summary of the conversation so far:');
    // The tool result is folded into its call, not a card of its own.
    expect(within(cards[2]!).getByText('two charges')).toBeTruthy();
    expect(screen.getByText(/5 messages, 49 tokens/)).toBeTruthy();
    expect(screen.getByText('<i>queued</i>')).toBeTruthy();
    expect(container.querySelector('i')).toBeNull();
  });

  it('says when there is no snapshot and when the context is empty', () => {
    render(
      <ModelView
        context={{
          ...context,
          messages: [],
          snapshot: null,
          tokens: { summary: 0, pinned: 0, tail: 0, priming: 0, total: 0 },
        }}
      />,
    );
    expect(screen.getByText(/No snapshot yet: the whole stored log is sent/)).toBeTruthy();
    expect(screen.getByText(/The context is empty/)).toBeTruthy();
  });
});
