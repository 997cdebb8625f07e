/**
 * `@agent-memory/memory/mcp`: conversation memory over the Model Context Protocol.
 * `createMemoryMcpServer(backend, opts?)` returns an `McpServer` of `@modelcontextprotocol/sdk`
 * (an optional peer, loaded only by this entry point) for any transport; `agent-memory mcp` serves
 * it over stdio and the admin server at `/mcp` (see docs/mcp.md).
 */
export { createMemoryMcpServer, type MemoryMcpServerOptions } from './memory-mcp.server';
export {
  MCP_DEFAULT_READ_LIMIT,
  MCP_DEFAULT_SEARCH_LIMIT,
  MCP_MAX_APPEND_MESSAGES,
  MCP_MAX_QUERY_CHARS,
  MCP_MAX_SEARCH_LIMIT,
  MCP_MAX_TRANSCRIPT_MESSAGES,
} from './memory-mcp.limits';
export {
  MEMORY_MCP_TOOLS,
  type MemoryMcpToolCall,
  type MemoryMcpToolName,
  type MemoryMcpToolOutcome,
} from './memory-mcp.tools';
export { MemoryMcpToolError } from './memory-mcp-tool.error';
