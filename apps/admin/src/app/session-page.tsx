import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { CopyButton } from '../components/copy-button';
import { ErrorNotice } from '../components/error-notice';
import { SideFold } from '../components/side-fold';
import { TimeAgo } from '../components/time-ago';
import { CompactPanel } from '../features/compaction/components/compact-panel';
import { START_COMPACTION_ROUTE } from '../features/compaction/api/start-compaction';
import { useSessionContext } from '../features/context/api/get-context';
import { BudgetBar } from '../features/context/components/budget-bar';
import { ModelViewPanel } from '../features/context/components/model-view';
import { ManagePanel } from '../features/manage/components/manage-panel';
import { RecallBox } from '../features/recall/components/recall-box';
import { useInfo } from '../features/server/api/get-info';
import { mayCall, signedInRole, useRoleTable } from '../lib/roles';
import { useSession } from '../features/sessions/api/get-session';
import { transcriptQueryKey } from '../features/transcript/api/get-transcript';
import { Transcript } from '../features/transcript/components/transcript';
import { ApiError } from '../lib/api-client';
import { formatCount } from '../lib/number-format';
import { useHeightVariable } from '../lib/use-height-variable';
import { useUrlState, type UrlState } from '../lib/url-state';

/** The session view's tabs (`?view=`), in order. */
const SESSION_TABS = [
  ['log', 'Stored log'],
  ['model', 'Model view'],
  ['recall', 'Recall'],
] as const satisfies readonly (readonly [UrlState['view'], string])[];

/** `?session=<id>`: one session's log or model view, its budget, compaction and management. */
export function SessionPage({ sessionId }: { sessionId: string }) {
  const [state, navigate] = useUrlState();
  const client = useQueryClient();
  const session = useSession(sessionId);
  const info = useInfo();
  const role = signedInRole(info.data);
  const roles = useRoleTable();
  const version = session.data?.updatedAt ?? '';
  const totals = useSessionContext(sessionId, false, version, version !== '');
  const modelView = state.view === 'model';
  const recallView = state.view === 'recall';
  const context = useSessionContext(sessionId, true, version, modelView && version !== '');
  // The side column's height decides where it sticks (app.css, `.session-side`).
  const side = useHeightVariable('--session-side-height');
  const summarizer = info.data
    ? info.data.compaction.summarizer === 'llm'
      ? `LLM (${info.data.compaction.model ?? 'configured model'})`
      : 'extractive (offline)'
    : null;

  const refreshAll = useCallback(() => {
    void client.invalidateQueries({ queryKey: ['session', sessionId] });
    void client.invalidateQueries({ queryKey: ['context', sessionId] });
    void client.invalidateQueries({ queryKey: ['sessions'] });
    void client.resetQueries({ queryKey: transcriptQueryKey(sessionId) });
  }, [client, sessionId]);

  const back = (
    <a
      href="/"
      className="back-link"
      onClick={(event) => {
        event.preventDefault();
        navigate({ session: null }, 'push');
      }}
    >
      ← Sessions
    </a>
  );

  if (session.isError && !session.data) {
    const missing = session.error instanceof ApiError && session.error.status === 404;
    return (
      <section className="page">
        {back}
        {missing ? (
          <div className="card empty" role="alert">
            Session <code>{sessionId}</code> does not exist (it may have been deleted).
          </div>
        ) : (
          <ErrorNotice
            error={session.error}
            what="load the session"
            onRetry={() => void session.refetch()}
          />
        )}
      </section>
    );
  }
  const detail = session.data;
  const title = detail?.meta.title?.trim();
  return (
    <section className="page session-page" aria-labelledby="session-heading">
      {back}
      <div className="session-head">
        <div className="session-title">
          <h1 id="session-heading">{title || sessionId}</h1>
          <span className="id-line">
            <code className="mono muted">{sessionId}</code>
            <CopyButton value={sessionId} />
          </span>
        </div>
        {detail && (
          <dl className="facts facts-inline">
            <div>
              <dt>Messages</dt>
              <dd>{formatCount(detail.messages)}</dd>
            </div>
            <div>
              <dt>Stored</dt>
              <dd>{formatCount(detail.stored)}</dd>
            </div>
            <div>
              <dt>Context</dt>
              <dd>{formatCount(detail.tokens)} tok</dd>
            </div>
            <div>
              <dt>Updated</dt>
              <dd>
                <TimeAgo iso={detail.updatedAt} />
              </dd>
            </div>
            <div>
              <dt>Snapshot</dt>
              <dd>
                {detail.snapshot ? (
                  <>
                    up to <span className="mono">#{detail.snapshot.upTo}</span> ·{' '}
                    <TimeAgo iso={detail.snapshot.createdAt} />
                  </>
                ) : (
                  'none yet'
                )}
              </dd>
            </div>
          </dl>
        )}
      </div>
      <div className="session-grid">
        <div className="session-main">
          <div className="tabs" role="tablist" aria-label="Session view">
            {SESSION_TABS.map(([view, label]) => (
              <button
                key={view}
                type="button"
                role="tab"
                aria-selected={state.view === view}
                className="tab"
                onClick={() => navigate({ view })}
              >
                {label}
              </button>
            ))}
          </div>
          <div role="tabpanel">
            {recallView ? (
              <RecallBox
                key={sessionId}
                sessionId={sessionId}
                configured={info.data ? info.data.recall !== null : true}
              />
            ) : modelView ? (
              <ModelViewPanel
                context={context.data}
                isError={context.isError}
                error={context.error}
                onRetry={() => void context.refetch()}
              />
            ) : (
              <Transcript
                key={sessionId}
                sessionId={sessionId}
                snapshot={detail?.snapshot ?? null}
                summaryTokens={
                  totals.data ? totals.data.tokens.summary + totals.data.tokens.pinned : null
                }
                messagesEver={detail?.messages}
              />
            )}
          </div>
        </div>
        <aside className="session-side" ref={side}>
          <SideFold
            title="Token budget"
            summary={
              totals.data
                ? `${formatCount(totals.data.tokens.total)} of ${formatCount(totals.data.compactAt)} tokens`
                : undefined
            }
          >
            <section className="card panel" aria-labelledby="budget-heading">
              <h2 id="budget-heading">Token budget</h2>
              {totals.data ? (
                <BudgetBar
                  summary={totals.data.tokens.summary}
                  pinned={totals.data.tokens.pinned}
                  tail={totals.data.tokens.tail}
                  priming={totals.data.tokens.priming}
                  total={totals.data.tokens.total}
                  thresholdTokens={totals.data.compactAt}
                />
              ) : totals.isError ? (
                <ErrorNotice error={totals.error} what="count the context" />
              ) : (
                <p className="muted">Counting…</p>
              )}
            </section>
          </SideFold>
          <SideFold title="Compaction">
            <CompactPanel
              sessionId={sessionId}
              summarizer={summarizer}
              lastCompaction={detail?.lastCompaction}
              mayCompact={mayCall(roles.data, role, START_COMPACTION_ROUTE)}
              onSettled={refreshAll}
            />
          </SideFold>
          {detail && (
            <SideFold title="Manage" summary="title, metadata, export, delete">
              <ManagePanel
                session={detail}
                role={role}
                onChanged={refreshAll}
                onDeleted={() => {
                  void client.invalidateQueries({ queryKey: ['sessions'] });
                  client.removeQueries({ queryKey: ['session', sessionId] });
                  navigate({ session: null }, 'push');
                }}
              />
            </SideFold>
          )}
        </aside>
      </div>
    </section>
  );
}
