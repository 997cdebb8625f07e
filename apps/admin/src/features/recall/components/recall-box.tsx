import { useId, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../../../components/error-notice';
import { ApiError } from '../../../lib/api-client';
import type { RecallView, RecalledMessageView } from '../../../lib/api-types';
import { exactTime } from '../../../lib/time-format';
import { useRecall } from '../api/get-recall';

const ROLE_LABEL: Record<RecalledMessageView['role'], string> = {
  system: 'System',
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool',
};

/** Shown instead of an error when the server runs without recall (HTTP 501). */
export function RecallNotConfigured() {
  return (
    <div className="notice" role="status">
      <strong>Recall is not configured</strong> on this server. Set{' '}
      <code>MEMORY_RECALL_EMBEDDER</code> (<code>hashed</code>, <code>offline</code> or{' '}
      <code>openai</code>), optionally <code>MEMORY_RECALL_STORE=pgvector</code>, and restart it.
    </div>
  );
}

/**
 * Type a query, see what semantic recall would add to `retrieve(query)` for this session: the
 * recalled messages with their neighbours, each with role, time and score (hits only).
 */
export function RecallBox({ sessionId, configured }: { sessionId: string; configured: boolean }) {
  const [draft, setDraft] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const recall = useRecall(sessionId, asked);
  const inputId = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const query = draft.trim();
    if (query) setAsked(query);
  };
  const notConfigured =
    !configured || (recall.error instanceof ApiError && recall.error.status === 501);

  return (
    <section className="recall" aria-labelledby={`${inputId}-heading`}>
      <h2 id={`${inputId}-heading`} className="visually-hidden">
        Recall
      </h2>
      <p className="muted">
        What would semantic recall add to the model&apos;s context for a turn like this? Only
        messages that left the context (covered by the snapshot, not pinned) are recalled.
      </p>
      <form className="recall-form" onSubmit={submit} role="search">
        <label htmlFor={inputId} className="visually-hidden">
          Recall query
        </label>
        <input
          id={inputId}
          className="input"
          type="search"
          placeholder="Ask as a user would, e.g. “what was my booking reference?”"
          value={draft}
          maxLength={4000}
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" className="button button-primary" disabled={!draft.trim()}>
          Recall
        </button>
      </form>
      {notConfigured ? (
        <RecallNotConfigured />
      ) : recall.isError ? (
        <ErrorNotice error={recall.error} what="recall" onRetry={() => void recall.refetch()} />
      ) : recall.isFetching && !recall.data ? (
        <p className="muted" role="status">
          Recalling…
        </p>
      ) : recall.data ? (
        <RecallResult result={recall.data} sessionId={sessionId} />
      ) : null}
    </section>
  );
}

function RecallResult({ result, sessionId }: { result: RecallView; sessionId: string }) {
  if (result.ranges.length === 0) {
    return (
      <div className="card empty" role="status">
        Nothing would be recalled for “{result.query}”.
      </div>
    );
  }
  const hits = result.ranges.reduce(
    (count, range) => count + range.messages.filter((m) => m.score !== null).length,
    0,
  );
  return (
    <div className="recall-result" role="status" aria-live="polite">
      <p className="muted">
        {hits} {hits === 1 ? 'match' : 'matches'} in {result.ranges.length}{' '}
        {result.ranges.length === 1 ? 'range' : 'ranges'}, quoted in one system message before the
        context.
      </p>
      {result.ranges.map((range) => (
        <section
          key={`${range.session}:${range.messages[0]?.cursor ?? 0}`}
          className="recall-range"
          aria-label={`Recalled from ${range.session === sessionId ? 'this session' : range.session}`}
        >
          {range.session !== sessionId && (
            <p className="recall-source">
              from session <code>{range.session}</code>
            </p>
          )}
          {range.messages.map((message) => (
            <RecalledMessage key={message.cursor} message={message} />
          ))}
        </section>
      ))}
    </div>
  );
}

function RecalledMessage({ message }: { message: RecalledMessageView }) {
  const hit = message.score !== null;
  return (
    <article
      className={`message message-${message.role}${hit ? ' recall-hit' : ' message-covered'}`}
      aria-label={`${ROLE_LABEL[message.role]} message #${message.cursor}${hit ? ', a match' : ', a neighbour'}`}
    >
      <header className="message-head">
        <span className={`role role-${message.role}`}>{ROLE_LABEL[message.role]}</span>
        {hit ? (
          <span className="badge badge-ok" title="cosine similarity to the query">
            score {message.score!.toFixed(2)}
          </span>
        ) : (
          <span className="badge badge-muted">neighbour</span>
        )}
        <span className="message-meta">
          <span className="mono">#{message.cursor}</span>
          {message.at && <time dateTime={message.at}>{exactTime(message.at)}</time>}
        </span>
      </header>
      <div className="message-text">{message.text}</div>
    </article>
  );
}
