import {
  infiniteQueryOptions,
  useInfiniteQuery,
  type InfiniteData,
  type QueryClient,
} from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { Cursor, TranscriptPage } from '../../../lib/api-types';
import { TRANSCRIPT_PAGE_SIZE } from '../../../lib/page-sizes';

export { TRANSCRIPT_PAGE_SIZE };

/** `GET /api/sessions/:id/transcript?after&limit`: the stored log, oldest first, with tokens. */
export function getTranscript(
  id: string,
  after: Cursor | null,
  signal?: AbortSignal,
  limit = TRANSCRIPT_PAGE_SIZE,
): Promise<TranscriptPage> {
  return apiJson<TranscriptPage>(`/api/sessions/${encodeURIComponent(id)}/transcript`, {
    query: { after, limit },
    signal,
  });
}

export const transcriptQueryKey = (id: string) => ['transcript', id] as const;

export const transcriptQueryOptions = (id: string) =>
  infiniteQueryOptions({
    queryKey: transcriptQueryKey(id),
    initialPageParam: null as Cursor | null,
    queryFn: ({ pageParam, signal }) => getTranscript(id, pageParam, signal),
    getNextPageParam: (last) => last.next,
    // Outside writes show as the "new messages" pill, never by moving what is on screen.
    refetchOnWindowFocus: false,
    staleTime: Infinity,
  });

export function useTranscript(id: string) {
  return useInfiniteQuery(transcriptQueryOptions(id));
}

/** Page size when jumping to the latest message: the server's largest, to need few requests. */
const JUMP_PAGE_SIZE = 500;

/**
 * Loads the pages not loaded yet (at the largest page size) up to the end of the log, for "jump
 * to latest", or until a message after `through` is loaded (the snapshot boundary). The log is
 * read forward only, so this reads every page up to there once. Returns how many messages were added.
 */
export async function loadToEnd(
  client: QueryClient,
  id: string,
  through: Cursor = Number.POSITIVE_INFINITY,
): Promise<number> {
  const key = transcriptQueryKey(id);
  let added = 0;
  for (;;) {
    const data = client.getQueryData<InfiniteData<TranscriptPage, Cursor | null>>(key);
    const after = data?.pages[data.pages.length - 1]?.next ?? null;
    if (!data || after === null || after > through) return added;
    const page = await getTranscript(id, after, undefined, JUMP_PAGE_SIZE);
    added += page.items.length;
    client.setQueryData<InfiniteData<TranscriptPage, Cursor | null>>(key, (current) =>
      current
        ? { pages: [...current.pages, page], pageParams: [...current.pageParams, after] }
        : current,
    );
  }
}

/**
 * Reads the messages saved after the last loaded one and appends them as pages (the log has been
 * read to its end). Returns how many were added.
 */
export async function appendNewMessages(client: QueryClient, id: string): Promise<number> {
  const key = transcriptQueryKey(id);
  const data = client.getQueryData<InfiniteData<TranscriptPage, Cursor | null>>(key);
  if (!data) return 0;
  const lastPage = data.pages[data.pages.length - 1];
  let after = lastPage?.items[lastPage.items.length - 1]?.cursor ?? null;
  for (let i = data.pages.length - 2; after === null && i >= 0; i -= 1) {
    after = data.pages[i]!.items[data.pages[i]!.items.length - 1]?.cursor ?? null;
  }
  const page = await getTranscript(id, after);
  if (page.items.length === 0) return 0;
  client.setQueryData<InfiniteData<TranscriptPage, Cursor | null>>(key, (current) =>
    current
      ? { pages: [...current.pages, page], pageParams: [...current.pageParams, after] }
      : current,
  );
  return page.items.length;
}
