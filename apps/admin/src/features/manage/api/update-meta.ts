import { useMutation } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { SessionInfo } from '../../../lib/api-types';

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
