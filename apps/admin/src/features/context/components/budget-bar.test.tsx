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
      <BudgetBar summary={100} pinned={50} tail={350} total={520} thresholdTokens={1000} />,
    );
    expect(widths(container)).toEqual({ summary: '10%', pinned: '5%', tail: '35%' });
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
      <BudgetBar summary={0} pinned={0} tail={2000} total={2000} thresholdTokens={1000} />,
    );
    expect(widths(container)).toEqual({ tail: '100%' });
    expect(container.querySelector<HTMLElement>('.budget-threshold')!.style.left).toBe('50%');
    expect(screen.getByText(/over the threshold \(200%\): compaction is due/)).toBeTruthy();
  });

  it('leaves out empty segments', () => {
    const { container } = render(
      <BudgetBar summary={0} pinned={0} tail={0} total={0} thresholdTokens={1000} />,
    );
    expect(widths(container)).toEqual({});
    expect(screen.getByText('0% of the threshold')).toBeTruthy();
  });
});
