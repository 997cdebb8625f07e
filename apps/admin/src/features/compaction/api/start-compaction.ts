import { useMutation } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { CompactAccepted } from '../../../lib/api-types';

export interface CompactChoice {
  /** Compact even below the threshold. */
  force: boolean;
  /** Work out the result without saving it. */
  dryRun: boolean;
}

/** The route of {@link startCompaction}, as the server's role table names it. */
export const START_COMPACTION_ROUTE = {
  method: 'POST',
  pattern: '/api/sessions/:id/compact',
} as const;

/** `POST /api/sessions/:id/compact` → 202 `{ jobId }`. */
export function startCompaction(id: string, choice: CompactChoice): Promise<CompactAccepted> {
  return apiJson<CompactAccepted>(`/api/sessions/${encodeURIComponent(id)}/compact`, {
    method: 'POST',
    json: choice,
  });
}

export function useStartCompaction(id: string) {
  return useMutation({ mutationFn: (choice: CompactChoice) => startCompaction(id, choice) });
}
