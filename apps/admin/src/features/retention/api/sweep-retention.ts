import { useMutation } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { RetentionSweepView } from '../../../lib/api-types';

/** `POST /api/retention/sweep` with `{ dryRun }` → `{ expired, action, dryRun }`. */
export function sweepRetention(dryRun: boolean): Promise<RetentionSweepView> {
  return apiJson<RetentionSweepView>('/api/retention/sweep', { method: 'POST', json: { dryRun } });
}

/** The dashboard only asks for dry runs: it shows what the next sweep would expire. */
export function useRetentionDryRun() {
  return useMutation({ mutationFn: () => sweepRetention(true) });
}
