import { TimeAgo } from '../../../components/time-ago';
import { ApiError } from '../../../lib/api-client';
import type { CompactionJob } from '../../../lib/api-types';
import { formatCount } from '../../../lib/number-format';

const REASON_TEXT = {
  'below-threshold':
    'Nothing saved: the context is below the compaction threshold. Choose "Force" to compact anyway.',
  'nothing-to-cover':
    'Nothing saved: there are no messages to cover beyond those kept verbatim after the last snapshot.',
  'no-gain':
    'Nothing saved: the summary would not make the context smaller (no gain). Let more messages build up, or use an LLM summariser.',
  conflict:
    'Nothing saved: another writer saved a snapshot first (conflict). The session is unchanged; run it again.',
} as const;

function tokenChange(before: number, after: number): string {
  const saved = before > 0 ? Math.round(((before - after) / before) * 100) : 0;
  return `${formatCount(before)} → ${formatCount(after)} tokens${saved > 0 ? ` (−${saved}%)` : ''}`;
}

/**
 * A compaction job as the operator sees it: queued or running while polled, then its result
 * (covered messages, tokens before and after, the new boundary and summary, which summariser ran)
 * or its failure (conflicts and LLM errors named, never hidden).
 */
export function CompactionStatus({
  job,
  startError,
  summarizer,
  lost,
}: {
  job: CompactionJob | null;
  /** Starting the job failed (for example 503 while the server shuts down). */
  startError?: unknown;
  /** Which summariser this server runs ("extractive summary", or the LLM model). */
  summarizer: string | null;
  /** The server no longer knows the job (restarted, or forgot it). */
  lost?: boolean;
}) {
  if (startError) {
    const code = startError instanceof ApiError ? startError.code : null;
    return (
      <div className="job job-failed" role="alert">
        <div className="job-title">Could not start the compaction</div>
        <div>{startError instanceof Error ? startError.message : String(startError)}</div>
        {code && <code className="code-tag">{code}</code>}
      </div>
    );
  }
  if (!job) return null;
  const kind = job.dryRun ? 'Dry run' : 'Compaction';
  if (job.state === 'queued' || job.state === 'running') {
    return (
      <div className="job job-active" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" />
        <span className="job-title">
          {kind} {job.state === 'queued' ? 'queued' : 'running'}…
        </span>
        {lost && <span className="muted"> the server no longer reports this job</span>}
      </div>
    );
  }
  if (job.state === 'failed') {
    const error = job.error;
    return (
      <div className="job job-failed" role="alert">
        <div className="job-title">
          {kind} failed
          {job.finishedAt && (
            <>
              {' '}
              · <TimeAgo iso={job.finishedAt} />
            </>
          )}
        </div>
        <div>
          {error?.code === 'SNAPSHOT_CONFLICT'
            ? 'Another writer saved a snapshot first (conflict). '
            : error?.name && /llm|openai|summar|fetch|http/i.test(`${error.name} ${error.message}`)
              ? 'The summariser (LLM) call failed. '
              : ''}
          Nothing was changed.
        </div>
        <pre className="pre pre-error">
          {error
            ? `${error.name}${error.code ? ` (${error.code})` : ''}: ${error.message}`
            : 'unknown error'}
        </pre>
      </div>
    );
  }
  const result = job.result;
  if (!result) return null;
  // A dry run "saves" when it would save: it found a cut and its summary shrinks the context.
  const saved = result.compacted || (job.dryRun && result.snapshot !== undefined && !result.reason);
  return (
    <div className={`job ${saved ? 'job-done' : 'job-noop'}`} role="status" aria-live="polite">
      <div className="job-title">
        {job.dryRun ? 'Dry run done' : result.compacted ? 'Compacted' : 'Compaction done'}
        {job.finishedAt && (
          <>
            {' '}
            · <TimeAgo iso={job.finishedAt} />
          </>
        )}
      </div>
      {saved ? (
        <dl className="facts">
          <div>
            <dt>{job.dryRun ? 'Would cover' : 'Covers'}</dt>
            <dd>
              messages up to <span className="mono">#{result.upTo}</span> (the new boundary)
            </dd>
          </div>
          <div>
            <dt>Context</dt>
            <dd>{tokenChange(result.tokensBefore, result.tokensAfter)}</dd>
          </div>
          {summarizer && (
            <div>
              <dt>Summariser</dt>
              <dd>{summarizer}</dd>
            </div>
          )}
          {job.dryRun && (
            <div>
              <dt>Saved</dt>
              <dd>nothing (dry run)</dd>
            </div>
          )}
        </dl>
      ) : (
        <p>
          {result.reason ? REASON_TEXT[result.reason] : 'Nothing saved.'}{' '}
          <span className="muted">
            {result.reason === 'no-gain'
              ? `Context: ${tokenChange(result.tokensBefore, result.tokensAfter)} with it.`
              : `Context: ${formatCount(result.tokensBefore)} tokens.`}
          </span>
        </p>
      )}
      {result.snapshot && (
        <details className="reasoning" open={job.dryRun}>
          <summary>
            {!saved ? 'Summary (not saved)' : job.dryRun ? 'Summary it would save' : 'New summary'}
          </summary>
          <div className="message-text">{result.snapshot.summary}</div>
        </details>
      )}
    </div>
  );
}
