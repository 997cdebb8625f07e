import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { EraseReceipt } from '../../../lib/api-types';

/** `DELETE /api/resources/:resource`: erases every session of the resource; answers a receipt. */
export function eraseResource(resource: string): Promise<EraseReceipt> {
  return apiJson<EraseReceipt>(`/api/resources/${encodeURIComponent(resource)}`, {
    method: 'DELETE',
  });
}

/** Erases a resource, then refreshes every sessions list (its sessions are gone). */
export function useEraseResource() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: eraseResource,
    onSuccess: () => client.invalidateQueries({ queryKey: ['sessions'] }),
  });
}
