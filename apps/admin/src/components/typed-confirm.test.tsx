import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TypedConfirm } from './typed-confirm';

afterEach(() => {
  delete (Element.prototype as Partial<Element>).scrollIntoView;
});

describe('TypedConfirm', () => {
  it('scrolls itself into view when it opens and puts the cursor in its field', () => {
    // jsdom has no layout: record the call instead.
    const scrolled: Element[] = [];
    Element.prototype.scrollIntoView = vi.fn(function (this: Element) {
      scrolled.push(this);
    });
    render(
      <TypedConfirm
        expected="s-1"
        action="Delete session"
        description="Deletes it."
        busy={false}
        onConfirm={() => undefined}
      />,
    );
    const form = screen.getByRole('button', { name: 'Delete session' }).closest('form')!;
    expect(scrolled).toEqual([form]);
    expect(Element.prototype.scrollIntoView).toHaveBeenCalledWith({ block: 'nearest' });
    expect(document.activeElement).toBe(screen.getByLabelText(/to confirm/));
  });
});
