import { useMutation } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { SessionInfo } from '../../../lib/api-types';

/** The route of {@link updateMeta}, as the server's role table names it. */
export const UPDATE_META_ROUTE = { method: 'PATCH', pattern: '/api/sessions/:id/meta' } as const;

/** `PATCH /api/sessions/:id/meta`: sets each key; '' removes it. */
export function updateMeta(id: string, patch: Record<string, string>): Promise<SessionInfo> {
  return apiJson<SessionInfo>(`/api/sessions/${encodeURIComponent(id)}/meta`, {
    method: 'PATCH',
    json: patch,
  });
}

export function useUpdateMeta(id: string) {
  return useMutation({ mutationFn: (patch: Record<string, string>) => updateMeta(id, patch) });
}
