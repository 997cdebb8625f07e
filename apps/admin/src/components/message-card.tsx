import { useState, type ReactNode } from 'react';
import type { Message } from '../lib/api-types';
import { looksLikeMarkdown } from '../lib/render-markdown';
import { formatCount } from '../lib/number-format';
import { MessageBody } from './message-body';

const ROLE_LABEL: Record<Message['role'], string> = {
  system: 'System',
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool',
};

/**
 * One message: role, position, token count, badges, then its content. An assistant's Markdown is
 * shown formatted, with a toggle to see the text as stored.
 */
export function MessageCard({
  message,
  cursor,
  tokens,
  badges,
  results,
  dimmed,
}: {
  message: Message;
  cursor: number | null;
  tokens: number | null;
  badges?: ReactNode;
  results?: ReadonlyMap<string, Message>;
  dimmed?: boolean;
}) {
  const [raw, setRaw] = useState(false);
  const hasMarkdown =
    message.role === 'assistant' &&
    message.parts.some((part) => part.type === 'text' && looksLikeMarkdown(part.text ?? ''));
  return (
    <article
      className={`message message-${message.role}${dimmed ? ' message-covered' : ''}${
        message.toolError ? ' message-tool-error' : ''
      }`}
      data-cursor={cursor ?? undefined}
      aria-label={`${ROLE_LABEL[message.role]} message${cursor !== null ? ` #${cursor}` : ''}`}
    >
      <header className="message-head">
        <span className={`role role-${message.role}`}>{ROLE_LABEL[message.role]}</span>
        {message.name && <span className="muted">{message.name}</span>}
        {message.role === 'tool' && message.toolCallId && (
          <span className="muted mono">for {message.toolCallId}</span>
        )}
        {message.toolError && <span className="badge badge-error">tool error</span>}
        {badges}
        <span className="message-meta">
          {hasMarkdown && (
            <button
              type="button"
              className="link-button small"
              aria-pressed={raw}
              title={raw ? 'Show the Markdown formatted' : 'Show the text as stored'}
              onClick={() => setRaw(!raw)}
            >
              {raw ? 'formatted' : 'raw'}
            </button>
          )}
          {cursor !== null && <span className="mono">#{cursor}</span>}
          {tokens !== null && <span title="tokens of this message">{formatCount(tokens)} tok</span>}
        </span>
      </header>
      <MessageBody message={message} results={results} markdown={hasMarkdown && !raw} />
    </article>
  );
}
