import type { ReactNode } from 'react';
import { CopyButton } from '../../../components/copy-button';
import { ErrorNotice } from '../../../components/error-notice';
import { TimeAgo } from '../../../components/time-ago';
import { formatCount } from '../../../lib/number-format';
import type { SessionInfo } from '../../../lib/api-types';
import { useContextTokens } from '../api/get-context-tokens';
import { useSessions } from '../api/get-sessions';
import { JumpToSession } from './jump-to-session';
import { SearchBox } from './search-box';

function sessionHref(id: string): string {
  return `?session=${encodeURIComponent(id)}`;
}

function TokensCell({ tokens }: { tokens: number | null | undefined }) {
  if (tokens === undefined) return <span className="muted">…</span>;
  if (tokens === null) return <span className="muted">–</span>;
  return <>{formatCount(tokens)}</>;
}

function SessionRows({ rows, onOpen }: { rows: SessionInfo[]; onOpen: (id: string) => void }) {
  const ids = rows.map((row) => row.id);
  const tokens = useContextTokens(ids, rows.map((row) => row.updatedAt).join(','));
  return (
    <>
      {rows.map((row) => {
        const title = row.meta.title?.trim();
        return (
          <tr key={row.id} onClick={() => onOpen(row.id)} className="clickable">
            <td className="cell-title">
              <a
                href={sessionHref(row.id)}
                className={title ? undefined : 'untitled'}
                onClick={(event) => {
                  event.preventDefault();
                  event.stopPropagation();
                  onOpen(row.id);
                }}
              >
                {title || 'Untitled'}
              </a>
              <span className="id-line">
                <code className="mono muted">{row.id}</code>
                <CopyButton value={row.id} />
              </span>
              <span className="row-numbers">
                {formatCount(row.messages)} {row.messages === 1 ? 'message' : 'messages'} ·{' '}
                {formatCount(row.stored)} stored · <TokensCell tokens={tokens.data?.[row.id]} /> tok
                {row.hasSnapshot ? ' · snapshot' : ''}
              </span>
            </td>
            <td className="num col-number">{formatCount(row.messages)}</td>
            <td className="num col-number">{formatCount(row.stored)}</td>
            <td className="num col-number">
              <TokensCell tokens={tokens.data?.[row.id]} />
            </td>
            <td className="col-number">
              {row.hasSnapshot ? (
                <span className="badge badge-snapshot" title={`covers up to #${row.snapshotUpTo}`}>
                  snapshot
                </span>
              ) : (
                <span className="muted">–</span>
              )}
            </td>
            <td className="cell-time">
              <TimeAgo iso={row.updatedAt} />
            </td>
          </tr>
        );
      })}
    </>
  );
}

/**
 * The sessions list: debounced search, jump to an id, newest first with keyset "load more",
 * each page's context tokens fetched after its rows show. With `onResource`, a filter by the
 * sessions' `resource` meta (exact), and `aside` (such as actions on that resource) under the head.
 */
export function SessionsList({
  search,
  shown,
  onSearch,
  onShown,
  onOpen,
  resource = '',
  onResource,
  aside,
}: {
  search: string;
  shown: number | null;
  onSearch: (q: string) => void;
  onShown: (count: number) => void;
  onOpen: (id: string) => void;
  resource?: string;
  onResource?: (resource: string) => void;
  aside?: ReactNode;
}) {
  const sessions = useSessions(search, shown, resource);
  const pages = sessions.data?.pages ?? [];
  const count = pages.reduce((total, page) => total + page.items.length, 0);
  return (
    <section className="page" aria-labelledby="sessions-heading">
      <div className="page-head">
        <h1 id="sessions-heading">Sessions</h1>
        <div className="toolbar">
          <SearchBox value={search} onSearch={onSearch} />
          {onResource && (
            <SearchBox
              value={resource}
              onSearch={onResource}
              label="Show the sessions of one resource (its exact resource meta)"
              placeholder="Resource"
            />
          )}
          <JumpToSession onOpen={onOpen} />
        </div>
      </div>
      {aside}
      {sessions.isError && !sessions.data ? (
        <ErrorNotice
          error={sessions.error}
          what="load the sessions"
          onRetry={() => void sessions.refetch()}
        />
      ) : sessions.isPending ? (
        <div className="card empty" aria-busy="true">
          Loading sessions…
        </div>
      ) : count === 0 ? (
        <div className="card empty">
          {resource ? (
            <>
              No session of resource <code>{resource}</code>
              {search ? (
                <>
                  {' '}
                  matches <q>{search}</q>
                </>
              ) : null}
              .{' '}
              {onResource && (
                <button type="button" className="link-button" onClick={() => onResource('')}>
                  Show every resource
                </button>
              )}
            </>
          ) : search ? (
            <>
              No session matches <q>{search}</q>.{' '}
              <button type="button" className="link-button" onClick={() => onSearch('')}>
                Clear the search
              </button>
            </>
          ) : (
            <>No sessions yet. They appear here as soon as an agent saves its first message.</>
          )}
        </div>
      ) : (
        <div className="card table-card">
          <table className="sessions-table">
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col" className="num col-number" title="messages ever saved">
                  Messages
                </th>
                <th scope="col" className="num col-number" title="messages kept now">
                  Stored
                </th>
                <th
                  scope="col"
                  className="num col-number"
                  title="tokens of the context the model gets now"
                >
                  Tokens
                </th>
                <th scope="col" className="col-number">
                  Snapshot
                </th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {pages.map((page, index) => (
                <SessionRows key={index} rows={page.items} onOpen={onOpen} />
              ))}
            </tbody>
          </table>
          <div className="table-foot">
            <span className="muted">
              {formatCount(count)} shown{sessions.hasNextPage ? '' : ' · end of the list'}
            </span>
            {sessions.hasNextPage && (
              <button
                type="button"
                className="button"
                disabled={sessions.isFetchingNextPage}
                onClick={async () => {
                  const result = await sessions.fetchNextPage();
                  const total = (result.data?.pages ?? []).reduce(
                    (sum, page) => sum + page.items.length,
                    0,
                  );
                  onShown(total);
                }}
              >
                {sessions.isFetchingNextPage ? 'Loading…' : 'Load more'}
              </button>
            )}
          </div>
          {sessions.isFetchNextPageError && (
            <ErrorNotice error={sessions.error} what="load more sessions" />
          )}
        </div>
      )}
    </section>
  );
}
