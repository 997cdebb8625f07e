import { useQueryClient } from '@tanstack/react-query';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { ErrorNotice } from '../../../components/error-notice';
import type { StoredSnapshot } from '../../../lib/api-types';
import { appendNewMessages, loadToEnd, useTranscript } from '../api/get-transcript';
import { layoutTranscript, type TranscriptItem } from '../transcript-layout';
import { stickyOverlapPx } from '../sticky-overlap';
import { SnapshotBoundary } from './snapshot-boundary';
import { TranscriptRow } from './transcript-row';

/** A message card's height before it is measured (px). */
const ESTIMATED_ROW_PX = 96;
/** Rows rendered beyond the window on each side. */
const OVERSCAN = 6;
/** Space left between the sticky bars and a row scrolled to the top (px). */
const JUMP_GAP_PX = 8;

const itemKey = (item: TranscriptItem) =>
  item.kind === 'boundary' ? 'boundary' : String(item.entry.cursor);

/**
 * The stored log as a conversation, paged in as it is scrolled and virtualised (only the rows near
 * the window are in the DOM, so a 10k-message session scrolls as lightly as a short one). "Jump
 * to latest" loads the rest and scrolls to the end; "jump to start" goes back. Messages saved
 * after it was loaded show as an "N new messages" pill instead of moving the view.
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
  const [busy, setBusy] = useState<'latest' | 'new' | 'boundary' | null>(null);
  const [jumpError, setJumpError] = useState<unknown>(null);
  const [scrollTarget, setScrollTarget] = useState<'boundary' | null>(null);
  const list = useRef<HTMLDivElement>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  const jumps = useRef<HTMLElement>(null);
  const [scrollMargin, setScrollMargin] = useState(0);
  // What the sticky header and jump bar cover, measured when jumping (their height wraps).
  const [stickyPx, setStickyPx] = useState(0);

  const pages = transcript.data?.pages;
  const entries = useMemo(() => (pages ?? []).flatMap((page) => page.items), [pages]);
  const layout = useMemo(
    () => layoutTranscript(entries, snapshot, transcript.isSuccess && !transcript.hasNextPage),
    [entries, snapshot, transcript.isSuccess, transcript.hasNextPage],
  );

  // Where the list starts on the page: the virtualizer measures from the window's top.
  useLayoutEffect(() => {
    if (list.current) setScrollMargin(list.current.getBoundingClientRect().top + window.scrollY);
  }, [transcript.isPending]);

  const virtualizer = useWindowVirtualizer({
    count: layout.items.length,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: OVERSCAN,
    scrollMargin,
    // A row scrolled to the top lands under the sticky bars, not behind them.
    scrollPaddingStart: stickyPx,
    // Rows on the first render already, before the window is measured.
    initialRect: { width: 0, height: typeof window === 'undefined' ? 0 : window.innerHeight },
    getItemKey: (index) => itemKey(layout.items[index]!),
  });

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

  const scrollToLast = () =>
    window.requestAnimationFrame(() =>
      virtualizer.scrollToIndex(virtualizer.options.count - 1, { align: 'end' }),
    );

  /** Loads what is not loaded yet (the rest of the log, then what was saved since) and shows the end. */
  const jumpToLatest = async (reason: 'latest' | 'new') => {
    setBusy(reason);
    setJumpError(null);
    try {
      await loadToEnd(client, sessionId);
      await appendNewMessages(client, sessionId);
      setBaseline(messagesEver ?? null);
      scrollToLast();
    } catch (error) {
      setJumpError(error);
    } finally {
      setBusy(null);
    }
  };

  /** Loads the log through the snapshot's last covered message and shows the boundary. */
  const jumpToBoundary = async () => {
    if (!snapshot) return;
    setBusy('boundary');
    setJumpError(null);
    try {
      await loadToEnd(client, sessionId, snapshot.upTo);
      setStickyPx(
        stickyOverlapPx([document.querySelector('.app-header'), jumps.current]) + JUMP_GAP_PX,
      );
      setScrollTarget('boundary');
    } catch (error) {
      setJumpError(error);
    } finally {
      setBusy(null);
    }
  };

  // Scrolls once the boundary's row exists (after the pages it needs are laid out).
  const boundaryIndex = layout.items.findIndex((item) => item.kind === 'boundary');
  useEffect(() => {
    if (scrollTarget !== 'boundary' || boundaryIndex < 0) return;
    setScrollTarget(null);
    virtualizer.scrollToIndex(boundaryIndex, { align: 'start' });
  }, [scrollTarget, boundaryIndex, virtualizer]);

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
  const rows = virtualizer.getVirtualItems();
  return (
    <div className="transcript">
      {layout.items.length === 0 ? (
        <div className="card empty">This session has no stored messages.</div>
      ) : (
        <nav ref={jumps} className="transcript-jumps" aria-label="Move in the log">
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              virtualizer.scrollToIndex(0, { align: 'start' });
              window.scrollTo({ top: Math.max(0, scrollMargin - 80) });
            }}
          >
            ↑ Jump to start
          </button>
          {snapshot && (
            <button
              type="button"
              className="button button-small"
              disabled={busy !== null}
              onClick={() => void jumpToBoundary()}
            >
              {busy === 'boundary' ? 'Loading…' : '⇣ Jump to snapshot boundary'}
            </button>
          )}
          <button
            type="button"
            className="button button-small"
            disabled={busy !== null}
            onClick={() => void jumpToLatest('latest')}
          >
            {busy === 'latest' ? 'Loading the rest…' : '↓ Jump to latest'}
          </button>
          <span className="muted">
            {entries.length.toLocaleString('en')} loaded
            {hasNextPage ? ', more below' : ''}
          </span>
        </nav>
      )}
      {jumpError !== null && <ErrorNotice error={jumpError} what="load the rest of the log" />}
      <div
        ref={list}
        className="transcript-rows"
        style={{ height: virtualizer.getTotalSize(), position: 'relative' }}
      >
        {rows.map((row) => {
          const item = layout.items[row.index]!;
          return (
            <div
              key={row.key}
              data-index={row.index}
              ref={virtualizer.measureElement}
              className="transcript-slot"
              style={{ transform: `translateY(${row.start - scrollMargin}px)` }}
            >
              {item.kind === 'boundary' ? (
                <SnapshotBoundary
                  snapshot={snapshot!}
                  coveredCount={item.coveredCount}
                  coveredTokens={item.coveredTokens}
                  summaryTokens={summaryTokens}
                  pruned={item.pruned}
                />
              ) : (
                <TranscriptRow
                  entry={item.entry}
                  pinned={item.pinned}
                  toolResults={item.toolResults}
                />
              )}
            </div>
          );
        })}
      </div>
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
      {newCount > 0 && (
        <button
          type="button"
          className="new-pill"
          disabled={busy !== null}
          onClick={() => void jumpToLatest('new')}
        >
          {newCount === 1 ? '1 new message' : `${newCount} new messages`} ↓
        </button>
      )}
    </div>
  );
}
