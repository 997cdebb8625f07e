import { formatCount } from '../../../lib/number-format';
import { useHeightVariable } from '../../../lib/use-height-variable';
import { useInfo } from '../api/get-info';
import { useReadiness } from '../api/get-readiness';

/**
 * The top bar: product name (back to the list), backend, readiness, compaction and recall
 * settings, and who is signed in (the token's name and role). One row on a desktop (a fact too
 * long for it is cut, whole in its tooltip); its height is `--app-header-height`, which the
 * session page's sticky bars stay under.
 */
export function AppHeader({
  onHome,
  onAuditLog,
  onSignOut,
}: {
  onHome: () => void;
  /**
   * Opens the audit log; offered only when given (the app gives it to a token the server's role
   * table lets read the log).
   */
  onAuditLog?: () => void;
  onSignOut: () => void;
}) {
  const info = useInfo();
  const readiness = useReadiness();
  const ready = readiness.data?.ready;
  const header = useHeightVariable('--app-header-height');
  const compaction = info.data
    ? `${info.data.compaction.mode} · at ${formatCount(info.data.compaction.thresholdTokens)} tokens · ${
        info.data.compaction.summarizer === 'llm'
          ? (info.data.compaction.model ?? 'LLM')
          : 'extractive'
      }`
    : '…';
  const signedIn = info.data?.token ? `${info.data.token.name} · ${info.data.token.role}` : null;
  return (
    <header className="app-header" ref={header}>
      <a
        className="brand"
        href="/"
        onClick={(event) => {
          event.preventDefault();
          onHome();
        }}
      >
        agent-memory <span className="brand-sub">admin</span>
      </a>
      <dl className="header-facts">
        <div className="fact-whole">
          <dt>Backend</dt>
          <dd>{info.data?.backend ?? '…'}</dd>
        </div>
        <div className="fact-whole">
          <dt>Status</dt>
          <dd title={readiness.data?.detail ?? undefined}>
            <span
              className={`dot ${ready === undefined ? 'dot-unknown' : ready ? 'dot-ok' : 'dot-down'}`}
              aria-hidden="true"
            />
            {ready === undefined ? 'checking' : ready ? 'ready' : 'not ready'}
          </dd>
        </div>
        <div>
          <dt>Compaction</dt>
          <dd title={compaction}>{compaction}</dd>
        </div>
        <div>
          <dt>Recall</dt>
          <dd
            title={
              info.data?.recall
                ? `top ${info.data.recall.topK} per ${info.data.recall.scope}`
                : 'MEMORY_RECALL_* unset'
            }
          >
            {info.data
              ? info.data.recall
                ? `on · ${info.data.recall.embedder} · ${info.data.recall.store}`
                : 'off'
              : '…'}
          </dd>
        </div>
        {signedIn && (
          <div className="fact-whole">
            <dt>Signed in</dt>
            <dd title={`${signedIn} (the token's name and role)`}>{signedIn}</dd>
          </div>
        )}
      </dl>
      {onAuditLog && (
        <button type="button" className="button button-ghost button-small" onClick={onAuditLog}>
          Audit log
        </button>
      )}
      <button type="button" className="button button-ghost button-small" onClick={onSignOut}>
        Sign out
      </button>
    </header>
  );
}
