import { useState } from 'react';
import { ErrorNotice } from '../../../components/error-notice';
import type { RetentionView } from '../../../lib/api-types';
import { exactTime, relativeTime } from '../../../lib/time-format';
import { useRetention } from '../api/get-retention';
import { useRetentionDryRun } from '../api/sweep-retention';

type Policy = NonNullable<RetentionView['policy']>;

const ACTION_TEXT: Record<Policy['action'], string> = {
  delete: 'deleted',
  'keep-summary': 'reduced to their summary',
};

/** One sentence: which sessions expire and what happens to them. */
function policySentence(policy: Policy): string {
  const when = [
    policy.maxIdle && `idle longer than ${policy.maxIdle}`,
    policy.maxAge && `older than ${policy.maxAge}`,
  ]
    .filter(Boolean)
    .join(' or ');
  return `Sessions ${when} are ${ACTION_TEXT[policy.action]}.`;
}

/**
 * A "Retention" disclosure above the sessions list: opened, it shows the policy
 * (docs/operations.md#retention), when the next sweep runs, and a "Dry run" button listing the
 * sessions a sweep would expire now (nothing is changed). Nothing is asked before it is opened.
 */
export function RetentionPanel() {
  const [open, setOpen] = useState(false);
  return (
    <details
      className="retention"
      onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}
    >
      <summary className="retention-heading">Retention</summary>
      {open && <RetentionDetails />}
    </details>
  );
}

function RetentionDetails() {
  const retention = useRetention();
  const dryRun = useRetentionDryRun();

  if (retention.isError) {
    return <ErrorNotice error={retention.error} what="load the retention policy" />;
  }
  if (!retention.data) {
    return (
      <p className="muted" role="status">
        Loading…
      </p>
    );
  }
  const { policy, nextSweepAt } = retention.data;

  return (
    <div className="retention-body">
      {policy === null ? (
        <p className="muted">
          Off: sessions are kept until deleted. Set <code>MEMORY_RETENTION_MAX_IDLE</code> or{' '}
          <code>MEMORY_RETENTION_MAX_AGE</code> to expire them.
        </p>
      ) : (
        <>
          <p>
            {policySentence(policy)} Sessions with the metadata <code>retention = keep</code> are
            never expired.
          </p>
          {nextSweepAt && (
            <p className="muted">
              Next sweep <time title={exactTime(nextSweepAt)}>{relativeTime(nextSweepAt)}</time>.
            </p>
          )}
          <button
            type="button"
            className="button button-small"
            disabled={dryRun.isPending}
            onClick={() => dryRun.mutate()}
          >
            {dryRun.isPending ? 'Checking…' : 'Dry run'}
          </button>
          {dryRun.isError && <ErrorNotice error={dryRun.error} what="run the dry run" />}
          {dryRun.data &&
            (dryRun.data.expired.length === 0 ? (
              <p role="status">A sweep now would expire no session.</p>
            ) : (
              <div role="status">
                <p>
                  A sweep now would expire {dryRun.data.expired.length} session
                  {dryRun.data.expired.length === 1 ? '' : 's'} ({ACTION_TEXT[dryRun.data.action]}
                  ):
                </p>
                <ul className="retention-expired">
                  {dryRun.data.expired.map((id) => (
                    <li key={id}>
                      <code>{id}</code>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
        </>
      )}
    </div>
  );
}
