import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Message } from '../lib/api-types';
import { MessageBody } from './message-body';

describe('MessageBody', () => {
  it('shows provider data folded, the message and its parts apart', () => {
    const message: Message = {
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Done.', providerData: { aiSdk: { providerOptions: { x: 1 } } } },
      ],
      providerData: { chatCompletions: { refusal: null } },
    };
    render(<MessageBody message={message} />);
    const details = screen.getByText('Provider data').closest('details')!;
    expect(details.open).toBe(false);
    const shown = JSON.parse(details.querySelector('pre')!.textContent!) as unknown;
    expect(shown).toEqual({
      message: { chatCompletions: { refusal: null } },
      'parts[0]': { aiSdk: { providerOptions: { x: 1 } } },
    });
    expect(screen.getByText('Done.')).toBeTruthy();
  });

  it('shows nothing of it when a message has none', () => {
    render(<MessageBody message={{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }} />);
    expect(screen.queryByText('Provider data')).toBeNull();
  });
});
