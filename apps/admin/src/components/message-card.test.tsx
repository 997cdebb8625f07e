import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Message } from '../lib/api-types';
import { MessageCard } from './message-card';

const assistant = (text: string): Message =>
  ({ role: 'assistant', parts: [{ type: 'text', text }] }) as Message;

describe('MessageCard', () => {
  it("shows an assistant's Markdown formatted, and as stored after the raw toggle", () => {
    const text =
      'Plan:\n\n- **Day 1**: Baixa\n- Day 2: Sintra <img src=x onerror="window.__pwned=1">';
    const { container } = render(<MessageCard message={assistant(text)} cursor={3} tokens={20} />);
    expect(container.querySelector('.markdown li strong')!.textContent).toBe('Day 1');
    expect(container.querySelector('.markdown img')).toBeNull();
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();

    fireEvent.click(screen.getByRole('button', { name: 'raw' }));
    expect(container.querySelector('.markdown')).toBeNull();
    expect(container.querySelector('.message-text')!.textContent).toBe(text);
    expect(screen.getByRole('button', { name: 'formatted' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
  });

  it("leaves a user's text and plain prose as text, without a toggle", () => {
    const user = { role: 'user', parts: [{ type: 'text', text: '**not formatted**' }] } as Message;
    const { container } = render(<MessageCard message={user} cursor={1} tokens={5} />);
    expect(container.querySelector('strong')).toBeNull();
    expect(container.querySelector('.message-text')!.textContent).toBe('**not formatted**');
    expect(screen.queryByRole('button', { name: 'raw' })).toBeNull();
  });
});
