/** Where the admin server serves the memory's MCP tools (Streamable HTTP, behind the token gate). */
export const MCP_PATH = '/mcp';
