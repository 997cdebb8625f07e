import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { ErrorNotice } from '../../../components/error-notice';
import type { StoredSnapshot } from '../../../lib/api-types';
import { appendNewMessages, useTranscript } from '../api/get-transcript';
import { layoutTranscript } from '../transcript-layout';
import { SnapshotBoundary } from './snapshot-boundary';
import { TranscriptRow } from './transcript-row';

/**
 * The stored log as a conversation, paged in as it is scrolled. Messages saved after it was
 * loaded show as an "N new messages" pill instead of moving the view.
 */
export function Transcript({
  sessionId,
  snapshot,
  summaryTokens,
  messagesEver,
}: {
  sessionId: string;
  snapshot: StoredSnapshot | null;
  summaryTokens: number | null;
  /** The session's count of messages ever saved, as last polled. */
  messagesEver: number | undefined;
}) {
  const client = useQueryClient();
  const transcript = useTranscript(sessionId);
  const [baseline, setBaseline] = useState<number | null>(null);
  const [catchingUp, setCatchingUp] = useState(false);
  const sentinel = useRef<HTMLDivElement>(null);
  const end = useRef<HTMLDivElement>(null);

  const pages = transcript.data?.pages;
  const entries = useMemo(() => (pages ?? []).flatMap((page) => page.items), [pages]);
  const layout = useMemo(
    () => layoutTranscript(entries, snapshot, transcript.isSuccess && !transcript.hasNextPage),
    [entries, snapshot, transcript.isSuccess, transcript.hasNextPage],
  );

  // The count the loaded log stands for; what is saved later is "new".
  useEffect(() => {
    if (transcript.isSuccess && baseline === null && messagesEver !== undefined) {
      setBaseline(messagesEver);
    }
  }, [transcript.isSuccess, baseline, messagesEver]);

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = transcript;
  useEffect(() => {
    const target = sentinel.current;
    if (!target || !hasNextPage || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (seen) => {
        if (seen.some((entry) => entry.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
      },
      { rootMargin: '800px 0px' },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  const newCount =
    baseline !== null && messagesEver !== undefined ? Math.max(0, messagesEver - baseline) : 0;

  if (transcript.isError && !transcript.data) {
    return (
      <ErrorNotice
        error={transcript.error}
        what="load the messages"
        onRetry={() => void transcript.refetch()}
      />
    );
  }
  if (transcript.isPending) {
    return (
      <div className="card empty" aria-busy="true">
        Loading messages…
      </div>
    );
  }
  return (
    <div className="transcript">
      {layout.items.length === 0 && (
        <div className="card empty">This session has no stored messages.</div>
      )}
      {layout.items.map((item) =>
        item.kind === 'boundary' ? (
          <SnapshotBoundary
            key="boundary"
            snapshot={snapshot!}
            coveredCount={item.coveredCount}
            coveredTokens={item.coveredTokens}
            summaryTokens={summaryTokens}
            pruned={item.pruned}
          />
        ) : (
          <TranscriptRow
            key={item.entry.cursor}
            entry={item.entry}
            pinned={item.pinned}
            toolResults={item.toolResults}
          />
        ),
      )}
      <div ref={sentinel} className="transcript-foot">
        {transcript.hasNextPage ? (
          <button
            type="button"
            className="button"
            disabled={transcript.isFetchingNextPage}
            onClick={() => void transcript.fetchNextPage()}
          >
            {transcript.isFetchingNextPage ? 'Loading…' : 'Load later messages'}
          </button>
        ) : (
          entries.length > 0 && <span className="muted">End of the log</span>
        )}
        {transcript.isFetchNextPageError && (
          <ErrorNotice error={transcript.error} what="load more messages" />
        )}
      </div>
      <div ref={end} />
      {newCount > 0 && (
        <button
          type="button"
          className="new-pill"
          disabled={catchingUp}
          onClick={async () => {
            setCatchingUp(true);
            try {
              if (!transcript.hasNextPage) await appendNewMessages(client, sessionId);
              setBaseline(messagesEver ?? null);
              if (!transcript.hasNextPage) {
                window.requestAnimationFrame(() =>
                  end.current?.scrollIntoView?.({ behavior: 'smooth', block: 'end' }),
                );
              }
            } finally {
              setCatchingUp(false);
            }
          }}
        >
          {newCount === 1 ? '1 new message' : `${newCount} new messages`} ↓
        </button>
      )}
    </div>
  );
}
