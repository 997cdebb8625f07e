import { useEffect, useId, useRef, useState } from 'react';
import type { CompactionJob } from '../../../lib/api-types';
import { useCompactionJob } from '../api/get-compaction-job';
import { useStartCompaction } from '../api/start-compaction';
import { latestJob, storeLastJob, storedLastJob } from '../last-compaction.storage';
import { CompactionStatus } from './compaction-status';

/**
 * "Compact now" with dry-run and force choices; polls the job and keeps the last job's result
 * visible: this tab's, or the server's record of the session's last compaction (`lastCompaction`
 * on the session route, from any tab or replica), whichever is newer. `onSettled` runs once a job
 * is done or failed.
 */
export function CompactPanel({
  sessionId,
  summarizer,
  lastCompaction,
  mayCompact = true,
  onSettled,
}: {
  sessionId: string;
  /** Whether the signed-in token may start a compaction (an operator or an admin). Default true. */
  mayCompact?: boolean;
  summarizer: string | null;
  /** The server's record of the session's last compaction. */
  lastCompaction: CompactionJob | null | undefined;
  onSettled: (job: CompactionJob) => void;
}) {
  const [dryRun, setDryRun] = useState(false);
  const [force, setForce] = useState(false);
  const [last, setLast] = useState<CompactionJob | null>(() => storedLastJob(sessionId));
  const [jobId, setJobId] = useState<string | null>(() => {
    const stored = storedLastJob(sessionId);
    return stored && (stored.state === 'queued' || stored.state === 'running') ? stored.id : null;
  });
  const start = useStartCompaction(sessionId);
  const job = useCompactionJob(jobId);
  const settled = useRef<string | null>(null);
  const ids = { dry: useId(), force: useId() };

  useEffect(() => {
    const current = job.data;
    if (!current) return;
    setLast(current);
    storeLastJob(sessionId, current);
    if (
      (current.state === 'done' || current.state === 'failed') &&
      settled.current !== current.id
    ) {
      settled.current = current.id;
      onSettled(current);
    }
  }, [job.data, sessionId, onSettled]);

  const shown = latestJob(last, lastCompaction);
  const busy =
    start.isPending || ((last?.state === 'queued' || last?.state === 'running') && !job.isError);
  return (
    <section className="card panel" aria-labelledby="compact-heading">
      <h2 id="compact-heading">Compaction</h2>
      {mayCompact && (
        <div className="compact-controls">
          <label htmlFor={ids.dry} className="check">
            <input
              id={ids.dry}
              type="checkbox"
              checked={dryRun}
              onChange={(event) => setDryRun(event.target.checked)}
            />
            Dry run <span className="muted">(save nothing)</span>
          </label>
          <label htmlFor={ids.force} className="check">
            <input
              id={ids.force}
              type="checkbox"
              checked={force}
              onChange={(event) => setForce(event.target.checked)}
            />
            Force <span className="muted">(below the threshold too)</span>
          </label>
          <button
            type="button"
            className="button button-primary"
            disabled={busy}
            onClick={() =>
              start.mutate(
                { dryRun, force },
                {
                  onSuccess: ({ jobId: started }) => {
                    const queued: CompactionJob = {
                      id: started,
                      sessionId,
                      force,
                      dryRun,
                      state: 'queued',
                      createdAt: new Date().toISOString(),
                    };
                    setLast(queued);
                    storeLastJob(sessionId, queued);
                    setJobId(started);
                    // Force is a one-off: the next "Compact now" respects the threshold again.
                    setForce(false);
                  },
                },
              )
            }
          >
            {busy ? 'Compacting…' : 'Compact now'}
          </button>
        </div>
      )}
      <CompactionStatus
        job={shown}
        startError={start.error}
        summarizer={summarizer}
        lost={job.isError}
      />
      {!shown && !start.error && (
        <p className="muted small">
          Compaction summarises older messages into a snapshot; the model then gets the summary, the
          pinned task and the recent messages.
        </p>
      )}
    </section>
  );
}
