import { useMutation } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

/** The route of {@link clearSession}, as the server's role table names it. */
export const CLEAR_SESSION_ROUTE = { method: 'POST', pattern: '/api/sessions/:id/clear' } as const;

/** `POST /api/sessions/:id/clear`: drops messages, snapshot and metadata. */
export function clearSession(id: string): Promise<void> {
  return apiJson<void>(`/api/sessions/${encodeURIComponent(id)}/clear`, { method: 'POST' });
}

export function useClearSession(id: string) {
  return useMutation({ mutationFn: () => clearSession(id) });
}
