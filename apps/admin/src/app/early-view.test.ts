import { afterEach, describe, expect, it } from 'vitest';
import type { SessionPage, TranscriptPage } from '../lib/api-types';
import { showEarlySessions, showEarlyTranscript } from './early-view';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';

function session(id: string, title?: string): SessionPage['items'][number] {
  return {
    id,
    messages: 1234,
    stored: 12,
    hasSnapshot: false,
    snapshotUpTo: null,
    updatedAt: new Date().toISOString(),
    meta: title === undefined ? {} : { title },
  } as unknown as SessionPage['items'][number];
}

function root(): HTMLElement {
  return document.getElementById('root')!;
}

afterEach(() => document.body.replaceChildren());

describe('the first rows before React', () => {
  it('draws the sessions page as text in the list markup', () => {
    document.body.innerHTML = '<div id="root"></div>';
    showEarlySessions({ items: [session('s-1', HOSTILE), session('s-2')], next: null });
    const rows = root().querySelectorAll('.sessions-table tbody tr');
    expect(rows).toHaveLength(2);
    expect(rows[0]!.textContent).toContain(HOSTILE);
    expect(rows[0]!.textContent).toContain('1,234');
    // An untitled session shows its id where a titled one does.
    expect(rows[1]!.querySelector('.id-line code')!.textContent).toBe('s-2');
    expect(rows[1]!.querySelector('a')!.textContent).toBe('Untitled');
    // The key numbers also sit under the id, for a phone where the number columns are hidden.
    expect(rows[0]!.querySelector('.row-numbers')!.textContent).toBe('1,234 messages · 12 stored');
    expect(root().querySelector('img')).toBeNull();
    expect(root().querySelector('a')!.getAttribute('href')).toBe('?session=s-1');
  });

  it('draws the first messages of a log as text', () => {
    document.body.innerHTML = '<div id="root"></div>';
    const page = {
      items: [
        {
          cursor: 1,
          covered: false,
          tokens: 9,
          message: { role: 'user', parts: [{ type: 'text', text: HOSTILE }] },
        },
      ],
      next: null,
    } as unknown as TranscriptPage;
    showEarlyTranscript(page);
    const article = root().querySelector('article[data-cursor="1"]')!;
    expect(article.getAttribute('aria-label')).toBe('User message #1');
    expect(article.querySelector('.message-text')!.textContent).toBe(HOSTILE);
    expect(root().querySelector('img')).toBeNull();
  });

  it('leaves #root alone once the app has drawn into it, and ignores a failed call', () => {
    document.body.innerHTML = '<div id="root"><p>app</p></div>';
    showEarlySessions({ items: [session('s-1')], next: null });
    expect(root().innerHTML).toBe('<p>app</p>');
    root().replaceChildren();
    showEarlySessions(null);
    showEarlyTranscript({ error: 'x' });
    expect(root().childNodes).toHaveLength(0);
  });
});
