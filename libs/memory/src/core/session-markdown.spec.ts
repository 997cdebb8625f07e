import type { SessionInfo } from './backend.interface';
import type { Entry, StoredSnapshot } from './memory.interface';
import { assistantMessage, userMessage, type Message } from './message';
import { sessionMarkdown } from './session-markdown';

const info: SessionInfo = {
  id: 'trip',
  messages: 4,
  stored: 3,
  updatedAt: '2026-12-05T10:00:00.000Z',
  meta: { title: 'Lisbon', resource: 'user-7' },
  hasSnapshot: true,
  snapshotUpTo: 2,
};

const entry = (cursor: number, message: Message, savedAt?: string): Entry => ({
  cursor,
  message,
  ...(savedAt ? { savedAt } : {}),
});

describe('sessionMarkdown', () => {
  it('shows the header, metadata, snapshot with pinned messages, and the log with covered marks', () => {
    const snapshot: StoredSnapshot = {
      summary: 'Planning a trip in May.',
      pinned: [userMessage('I am planning a trip to Lisbon in May.')],
      upTo: 2,
      createdAt: '2026-12-05T09:00:00.000Z',
    };
    const text = sessionMarkdown({
      info,
      snapshot,
      entries: [
        entry(2, userMessage('What about the budget?')),
        entry(3, assistantMessage('About 900 euros.'), '2026-12-05T09:30:00.000Z'),
      ],
      exportedAt: '2026-12-05T11:00:00.000Z',
    });
    expect(text).toBe(
      [
        '# Session Lisbon (trip)',
        '',
        '- messages ever saved: 4',
        '- messages stored: 3',
        '- last update: 2026-12-05T10:00:00.000Z',
        '- exported: 2026-12-05T11:00:00.000Z',
        '',
        '## Metadata',
        '',
        '- `title`: "Lisbon"',
        '- `resource`: "user-7"',
        '',
        '## Snapshot (covers up to #2, made 2026-12-05T09:00:00.000Z)',
        '',
        '```\nPlanning a trip in May.\n```',
        '',
        '### user · pinned',
        '',
        '```\nI am planning a trip to Lisbon in May.\n```',
        '',
        '## Log',
        '',
        '### user · #2 · covered by the snapshot',
        '',
        '```\nWhat about the budget?\n```',
        '',
        '### assistant · #3 · 2026-12-05T09:30:00.000Z',
        '',
        '```\nAbout 900 euros.\n```',
        '',
      ].join('\n'),
    );
  });

  it.each([
    ['backticks in the text', userMessage('a ``` b'), '````\na ``` b\n````'],
    [
      'a tool call, its arguments fenced as JSON',
      {
        role: 'assistant',
        parts: [],
        toolCalls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
      } as Message,
      '*tool call* `weather` (c1):\n\n```json\n{}\n```',
    ],
    [
      'a failed tool result',
      {
        role: 'tool',
        toolCallId: 'c1',
        toolError: true,
        parts: [{ type: 'text', text: 'no' }],
      } as Message,
      '### tool result for c1 (error) · #1',
    ],
    [
      'an inline image',
      { role: 'user', parts: [{ type: 'image_base64', mimeType: 'image/png', data: 'AA==' }] },
      '*image (image/png, inline)*',
    ],
  ] as Array<[string, Message, string]>)('renders %s', (_name, message, expected) => {
    const text = sessionMarkdown({ info, snapshot: null, entries: [entry(1, message)] });
    expect(text).toContain(expected);
    expect(text).not.toContain('## Snapshot');
  });

  it('closes with the footer when one is given', () => {
    const text = sessionMarkdown({
      info,
      snapshot: null,
      entries: [],
      footer: '*The log continues after #3.*',
    });
    expect(text.endsWith('## Log\n\n*The log continues after #3.*\n')).toBe(true);
  });
});
