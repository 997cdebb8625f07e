import { MEMORY_MCP_TOOLS, type MemoryMcpToolName } from '@agent-memory/memory/mcp';
import type { AdminRole } from '../auth/admin-role';

/**
 * The role a token needs for each tool over `/mcp`: viewers read (list, context, messages,
 * search); what changes stored data (`append_messages`, `compact_session`, dry runs included)
 * needs an operator, as `POST /api/sessions/:id/messages` and `/compact` do.
 */
export function mcpToolRole(tool: MemoryMcpToolName): AdminRole {
  return MEMORY_MCP_TOOLS[tool].changes ? 'operator' : 'viewer';
}
