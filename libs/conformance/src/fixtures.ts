import {
  assistantMessage,
  toolResultMessage,
  userMessage,
  type CompactionJob,
  type Message,
} from '@agent-memory/memory';

/** One message of every shape the model has, for round-trip tests. */
export function everyShapeMessages(): Message[] {
  return [
    { role: 'system', parts: [{ type: 'text', text: 'You are terse.' }] },
    userMessage([
      { type: 'text', text: 'What is in these pictures?' },
      { type: 'image_url', imageUrl: 'https://example.test/cat.png' },
      { type: 'image_base64', imageBase64: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ]),
    {
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'The user wants a description.', signature: 'sig-abc123' },
        { type: 'redacted_reasoning', text: 'opaque' },
        { type: 'text', text: 'Let me look closer.' },
      ],
      toolCalls: [
        { id: 'call_1', type: 'function', function: { name: 'zoom', arguments: '{"factor":2}' } },
        { id: 'call_2', type: 'function', function: { name: 'crop', arguments: '{}' } },
      ],
    },
    toolResultMessage('call_1', 'zoomed'),
    toolResultMessage('call_2', 'crop failed: out of bounds', { error: true }),
    { role: 'user', parts: [{ type: 'text', text: 'thanks' }], name: 'alice' },
  ];
}

/** `count` alternating user/assistant text messages, numbered from `from`. */
export function conversation(count: number, from = 0): Message[] {
  return Array.from({ length: count }, (_, i) =>
    (from + i) % 2 === 0 ? userMessage(`u${from + i}`) : assistantMessage(`a${from + i}`),
  );
}

export function texts(messages: readonly Message[]): string[] {
  return messages.map((m) => m.parts.map((p) => p.text ?? '').join(''));
}

/** A clock a test moves by hand (epoch ms), for leases and times to live. */
export class TestClock {
  constructor(public ms = Date.UTC(2026, 0, 1)) {}
  readonly now = (): number => this.ms;
}

/** A compaction job record of session `session-1`, in `state`, with `extra` fields. */
export function compactionJob(
  id: string,
  state: CompactionJob['state'],
  extra: Partial<CompactionJob> = {},
): CompactionJob {
  return {
    id,
    sessionId: 'session-1',
    force: true,
    dryRun: false,
    state,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}
