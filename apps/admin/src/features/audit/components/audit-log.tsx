import { ErrorNotice } from '../../../components/error-notice';
import { TimeAgo } from '../../../components/time-ago';
import type { AuditEntryView } from '../../../lib/api-types';
import { useAudit } from '../api/get-audit';

/** What an entry touched: its session (a link to it), its resource, or nothing. */
function Target({ entry, onOpen }: { entry: AuditEntryView; onOpen: (session: string) => void }) {
  if (entry.sessionId) {
    return (
      <button type="button" className="link-button mono" onClick={() => onOpen(entry.sessionId!)}>
        {entry.sessionId}
      </button>
    );
  }
  if (entry.resource) return <span className="mono">resource {entry.resource}</span>;
  return <span className="muted">—</span>;
}

/**
 * The audit log: every change made through the API, newest first, with who made it (the token's
 * name and role), what, on which session or resource, and how it ended; "Load more" pages back.
 */
export function AuditLog({ onOpen }: { onOpen: (session: string) => void }) {
  const audit = useAudit();
  const entries = audit.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section aria-labelledby="audit-heading">
      <div className="page-head">
        <h1 id="audit-heading">Audit log</h1>
      </div>
      {audit.isError && !audit.data ? (
        <ErrorNotice
          error={audit.error}
          what="load the audit log"
          onRetry={() => void audit.refetch()}
        />
      ) : audit.isPending ? (
        <div className="card empty" aria-busy="true">
          Loading the audit log…
        </div>
      ) : entries.length === 0 ? (
        <div className="card empty">No changes recorded yet.</div>
      ) : (
        <div className="card table-card">
          <table className="sessions-table audit-table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <TimeAgo iso={entry.at} />
                  </td>
                  <td>
                    {entry.actor.name} <span className="muted">· {entry.actor.role}</span>
                  </td>
                  <td className="mono">{entry.action}</td>
                  <td>
                    <Target entry={entry} onOpen={onOpen} />
                  </td>
                  <td className={entry.status >= 400 ? 'field-error' : undefined}>
                    {entry.status}
                    {entry.code ? ` ${entry.code}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="table-foot">
            <span className="muted">
              {entries.length} shown{audit.hasNextPage ? '' : ' · end of the log'}
            </span>
            {audit.hasNextPage && (
              <button
                type="button"
                className="button"
                disabled={audit.isFetchingNextPage}
                onClick={() => void audit.fetchNextPage()}
              >
                {audit.isFetchingNextPage ? 'Loading…' : 'Load more'}
              </button>
            )}
          </div>
        </div>
      )}
    </section>
  );
}
