/** The bounds of the MCP tools' arguments and pages (documented in docs/mcp.md). */

/** Most messages one `append_messages` call saves. */
export const MCP_MAX_APPEND_MESSAGES = 500;
/** Default page of `read_messages` (at most `MAX_LIST_LIMIT`). */
export const MCP_DEFAULT_READ_LIMIT = 100;
/** Default number of `search_memory` hits. */
export const MCP_DEFAULT_SEARCH_LIMIT = 5;
/** Largest number of `search_memory` hits. */
export const MCP_MAX_SEARCH_LIMIT = 50;
/** Longest `search_memory` query (characters). */
export const MCP_MAX_QUERY_CHARS = 4000;
/** Longest `list_sessions` `search` (characters), as the admin API's `?search`. */
export const MCP_MAX_SEARCH_CHARS = 256;
/** Longest `resource` argument (characters): a metadata value's bound. */
export const MCP_MAX_RESOURCE_CHARS = 4096;
/** Longest `list_sessions` `after` page token (characters). */
export const MCP_MAX_PAGE_TOKEN_CHARS = 1024;
/** Sessions per `resources/list` page. */
export const MCP_RESOURCES_PAGE_SIZE = 50;
/** Log entries read per round trip while rendering a transcript. */
export const MCP_TRANSCRIPT_PAGE_SIZE = 500;
/** Most log entries one transcript shows (the rest is a `read_messages` away). */
export const MCP_MAX_TRANSCRIPT_MESSAGES = 2000;
