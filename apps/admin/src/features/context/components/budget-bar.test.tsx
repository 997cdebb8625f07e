import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BudgetBar } from './budget-bar';

type Parts = Partial<Record<'summary' | 'pinned' | 'tail' | 'priming', number>>;

/** The bar for `parts` (absent ones 0) of `total` tokens, against a threshold of 1000. */
function renderBar(parts: Parts, total: number) {
  const { summary = 0, pinned = 0, tail = 0, priming = 0 } = parts;
  const { container } = render(
    <BudgetBar
      summary={summary}
      pinned={pinned}
      tail={tail}
      priming={priming}
      total={total}
      thresholdTokens={1000}
    />,
  );
  return {
    /** Each drawn segment's width, by its name. */
    widths: Object.fromEntries(
      [...container.querySelectorAll<HTMLElement>('.budget-seg')].map((node) => [
        node.className.replace('budget-seg budget-', ''),
        node.style.width,
      ]),
    ),
    /** Where the threshold's marker stands on the track. */
    thresholdLeft: container.querySelector<HTMLElement>('.budget-threshold')!.style.left,
  };
}

describe('BudgetBar', () => {
  it.each<[string, Parts, number, Record<string, string>, string, RegExp | string]>([
    [
      'draws summary, pinned and tail against the threshold',
      { summary: 100, pinned: 50, tail: 367, priming: 3 },
      520,
      { summary: '10%', pinned: '5%', tail: '36.7%', priming: '0.3%' },
      '100%',
      '52% of the threshold',
    ],
    [
      'rescales past the threshold so the marker stays inside, and says compaction is due',
      { tail: 1997, priming: 3 },
      2000,
      { tail: '99.85%', priming: '0.15%' },
      '50%',
      /over the threshold \(200%\): compaction is due/,
    ],
    ['leaves out empty segments', {}, 0, {}, '100%', '0% of the threshold'],
  ])('%s', (_name, parts, total, widths, thresholdLeft, caption) => {
    const bar = renderBar(parts, total);
    expect(bar.widths).toEqual(widths);
    expect(bar.thresholdLeft).toBe(thresholdLeft);
    expect(screen.getByText(caption)).toBeTruthy();
  });

  it('is a meter of the total against the threshold, with each part in the legend', () => {
    renderBar({ summary: 100, pinned: 50, tail: 367, priming: 3 }, 520);
    const meter = screen.getByRole('meter');
    expect(meter.getAttribute('aria-valuenow')).toBe('520');
    expect(meter.getAttribute('aria-valuemax')).toBe('1000');
    expect(screen.getByText('Summary').parentElement!.textContent).toContain('100');
  });

  it('has a legend whose parts add up to the total: each message with its overhead, then the reply priming', () => {
    renderBar({ summary: 40, pinned: 12, tail: 165, priming: 3 }, 220);
    const legend = screen.getByRole('list');
    const parts = [...legend.querySelectorAll('li:not(.budget-sum) .mono')].map((node) =>
      Number(node.textContent),
    );
    expect(parts).toEqual([40, 12, 165, 3]);
    expect(parts.reduce((a, b) => a + b, 0)).toBe(220);
    expect(screen.getByText('Reply priming').textContent).toContain('3');
    expect(legend.querySelector('.budget-sum')!.textContent).toContain(
      '= 220 tokens the model is sent',
    );
  });
});
