import { useMutation } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

/** `POST /api/sessions/:id/clear`: drops messages, snapshot and metadata. */
export function clearSession(id: string): Promise<void> {
  return apiJson<void>(`/api/sessions/${encodeURIComponent(id)}/clear`, { method: 'POST' });
}

export function useClearSession(id: string) {
  return useMutation({ mutationFn: () => clearSession(id) });
}
