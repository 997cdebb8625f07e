/** The tools `createMemoryMcpServer` offers, by name. */
export type MemoryMcpToolName =
  | 'list_sessions'
  | 'get_context'
  | 'read_messages'
  | 'append_messages'
  | 'search_memory'
  | 'compact_session';

/**
 * Every tool and whether it changes stored data (`append_messages` saves messages,
 * `compact_session` saves a snapshot unless it is a dry run): what an authorisation rule or an
 * audit log keys on.
 */
export const MEMORY_MCP_TOOLS: Readonly<Record<MemoryMcpToolName, { changes: boolean }>> = {
  list_sessions: { changes: false },
  get_context: { changes: false },
  read_messages: { changes: false },
  append_messages: { changes: true },
  search_memory: { changes: false },
  compact_session: { changes: true },
};

/** A tool call as `authorize` sees it, before anything is read or written. */
export interface MemoryMcpToolCall {
  tool: MemoryMcpToolName;
  /** Whether the tool changes stored data (see {@link MEMORY_MCP_TOOLS}). */
  changes: boolean;
  /** The call's `sessionId` argument, when it has one (not yet checked). */
  sessionId: string | null;
}

/** How a tool call ended, for `onToolResult` (an audit log, metrics). */
export interface MemoryMcpToolOutcome extends MemoryMcpToolCall {
  /** The `resource` argument, when the call had one. */
  resource: string | null;
  /** null when the tool succeeded, else the error code its result starts with. */
  code: string | null;
}
