import { TimeAgo } from '../../../components/time-ago';
import { MessageBody } from '../../../components/message-body';
import { formatCount } from '../../../lib/number-format';
import type { StoredSnapshot } from '../../../lib/api-types';

/**
 * Where the snapshot ends in the log: how many messages it covers and how many tokens they were,
 * what they were summarised to, and the summary card with the pinned messages.
 */
export function SnapshotBoundary({
  snapshot,
  coveredCount,
  coveredTokens,
  summaryTokens,
  pruned,
}: {
  snapshot: StoredSnapshot;
  /** Covered messages still in the log (0 when pruned). */
  coveredCount: number;
  /** Their tokens. */
  coveredTokens: number;
  /** Tokens of the summary message and the pinned ones, once known. */
  summaryTokens: number | null;
  /** The covered messages were dropped from the store. */
  pruned: boolean;
}) {
  const pinned = snapshot.pinned ?? [];
  return (
    <section className="boundary" aria-label="Snapshot boundary">
      <div className="boundary-line">
        <span>
          {pruned
            ? `Messages up to #${snapshot.upTo} covered and pruned from the store`
            : `Messages 1–${formatCount(coveredCount)} covered: ${formatCount(coveredTokens)} tokens`}
          {summaryTokens !== null && ` summarised to ${formatCount(summaryTokens)}`}
        </span>
      </div>
      <div className="summary-card">
        <header className="summary-head">
          <span className="badge badge-snapshot">Summary</span>
          <span className="muted">
            covers up to <span className="mono">#{snapshot.upTo}</span> · made{' '}
            <TimeAgo iso={snapshot.createdAt} />
          </span>
        </header>
        <div className="message-text summary-text">{snapshot.summary}</div>
        {pinned.length > 0 && (
          <div className="pinned-list">
            <div className="tool-label">
              Pinned ({pinned.length}): always sent after the summary
            </div>
            {pinned.map((message, index) => (
              <div key={index} className="pinned-item">
                <span className="badge badge-pinned">pinned</span>
                <span className={`role role-${message.role}`}>{message.role}</span>
                <MessageBody message={message} />
              </div>
            ))}
          </div>
        )}
      </div>
    </section>
  );
}
