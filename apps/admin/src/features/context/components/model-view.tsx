import { ErrorNotice } from '../../../components/error-notice';
import { MessageCard } from '../../../components/message-card';
import type { Message, SessionContext } from '../../../lib/api-types';

const SOURCE_LABEL = { summary: 'summary', pinned: 'pinned', tail: 'recent' } as const;

/**
 * Exactly the context `retrieve()` returns, in order: the summary message, the pinned messages,
 * then the recent messages, each with its source and tokens.
 */
export function ModelView({ context }: { context: SessionContext }) {
  const results = new Map<string, Message>();
  for (const { message } of context.messages) {
    if (message.role === 'tool' && message.toolCallId) results.set(message.toolCallId, message);
  }
  const calls = new Set(
    context.messages.flatMap(({ message }) => (message.toolCalls ?? []).map((call) => call.id)),
  );
  return (
    <div className="model-view">
      <p className="muted">
        What the model receives on its next turn: {context.messages.length} messages,{' '}
        {context.tokens.total.toLocaleString('en')} tokens.
        {context.snapshot
          ? ' The summary stands for the covered messages; pinned messages follow it.'
          : ' No snapshot yet: the whole stored log is sent.'}
      </p>
      {context.messages.length === 0 && (
        <div className="card empty">The context is empty: the model gets no history.</div>
      )}
      {context.messages.map((item, index) =>
        item.message.role === 'tool' &&
        item.message.toolCallId &&
        calls.has(item.message.toolCallId) ? null : (
          <MessageCard
            key={`${item.source}-${item.cursor ?? index}`}
            message={item.message}
            cursor={item.cursor}
            tokens={item.tokens}
            results={results}
            badges={
              <span className={`badge badge-source-${item.source}`}>
                {SOURCE_LABEL[item.source]}
              </span>
            }
          />
        ),
      )}
    </div>
  );
}

/** The model view with its loading and error states. */
export function ModelViewPanel({
  context,
  isError,
  error,
  onRetry,
}: {
  context: SessionContext | undefined;
  isError: boolean;
  error: unknown;
  onRetry: () => void;
}) {
  if (isError && !context) {
    return <ErrorNotice error={error} what="load the model's context" onRetry={onRetry} />;
  }
  if (!context) {
    return (
      <div className="card empty" aria-busy="true">
        Loading the context…
      </div>
    );
  }
  return <ModelView context={context} />;
}
