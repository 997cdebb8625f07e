import { useMutation } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

/** The route of {@link deleteSession}, as the server's role table names it. */
export const DELETE_SESSION_ROUTE = { method: 'DELETE', pattern: '/api/sessions/:id' } as const;

/** `DELETE /api/sessions/:id` (204). */
export function deleteSession(id: string): Promise<void> {
  return apiJson<void>(`/api/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

export function useDeleteSession(id: string) {
  return useMutation({ mutationFn: () => deleteSession(id) });
}
