import { apiFetch } from '../../../lib/api-client';

export type ExportFormat = 'json' | 'md';

/** `GET /api/sessions/:id/export?format=`: the whole session as a file (log, snapshot, meta). */
export async function exportSession(id: string, format: ExportFormat): Promise<Blob> {
  const response = await apiFetch(`/api/sessions/${encodeURIComponent(id)}/export`, {
    query: { format },
  });
  return response.blob();
}
