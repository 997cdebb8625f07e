import { apiJson } from '../../../lib/api-client';
import type { ServerInfo } from '../../../lib/api-types';

/** Checks a typed token by reading `/api/info` with it. @throws ApiError (401 when refused). */
export function checkToken(token: string): Promise<ServerInfo> {
  return apiJson<ServerInfo>('/api/info', { token });
}
