import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BudgetBar } from './budget-bar';

function widths(container: HTMLElement): Record<string, string> {
  return Object.fromEntries(
    [...container.querySelectorAll<HTMLElement>('.budget-seg')].map((node) => [
      node.className.replace('budget-seg budget-', ''),
      node.style.width,
    ]),
  );
}

describe('BudgetBar', () => {
  it('draws summary, pinned and tail against the threshold', () => {
    const { container } = render(
      <BudgetBar
        summary={100}
        pinned={50}
        tail={367}
        priming={3}
        total={520}
        thresholdTokens={1000}
      />,
    );
    expect(widths(container)).toEqual({
      summary: '10%',
      pinned: '5%',
      tail: '36.7%',
      priming: '0.3%',
    });
    const threshold = container.querySelector<HTMLElement>('.budget-threshold')!;
    expect(threshold.style.left).toBe('100%');
    const meter = screen.getByRole('meter');
    expect(meter.getAttribute('aria-valuenow')).toBe('520');
    expect(meter.getAttribute('aria-valuemax')).toBe('1000');
    expect(screen.getByText('52% of the threshold')).toBeTruthy();
    expect(screen.getByText('Summary').parentElement!.textContent).toContain('100');
  });

  it('rescales past the threshold so the marker stays inside, and says compaction is due', () => {
    const { container } = render(
      <BudgetBar
        summary={0}
        pinned={0}
        tail={1997}
        priming={3}
        total={2000}
        thresholdTokens={1000}
      />,
    );
    expect(widths(container)).toEqual({ tail: '99.85%', priming: '0.15%' });
    expect(container.querySelector<HTMLElement>('.budget-threshold')!.style.left).toBe('50%');
    expect(screen.getByText(/over the threshold \(200%\): compaction is due/)).toBeTruthy();
  });

  it('has a legend whose parts add up to the total: each message with its overhead, then the reply priming', () => {
    render(
      <BudgetBar
        summary={40}
        pinned={12}
        tail={165}
        priming={3}
        total={220}
        thresholdTokens={1000}
      />,
    );
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

  it('leaves out empty segments', () => {
    const { container } = render(
      <BudgetBar summary={0} pinned={0} tail={0} priming={0} total={0} thresholdTokens={1000} />,
    );
    expect(widths(container)).toEqual({});
    expect(screen.getByText('0% of the threshold')).toBeTruthy();
  });
});
