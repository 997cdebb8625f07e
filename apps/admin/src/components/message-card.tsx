import type { ReactNode } from 'react';
import type { Message } from '../lib/api-types';
import { formatCount } from '../lib/number-format';
import { MessageBody } from './message-body';

const ROLE_LABEL: Record<Message['role'], string> = {
  system: 'System',
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool',
};

/** One message: role, position, token count, badges, then its content. */
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
          {cursor !== null && <span className="mono">#{cursor}</span>}
          {tokens !== null && <span title="tokens of this message">{formatCount(tokens)} tok</span>}
        </span>
      </header>
      <MessageBody message={message} results={results} />
    </article>
  );
}
