import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type ListResourcesResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MAX_LIST_LIMIT, type MemoryBackend } from '../core/backend.interface';
import type { CompactionResult } from '../core/compaction-job';
import { DEFAULT_COMPACTION_THRESHOLD_TOKENS } from '../core/defaults';
import { InvalidMessageError, InvalidQueryError } from '../core/errors';
import type { Entry, SaveResult, SessionStore } from '../core/memory.interface';
import type { Message } from '../core/message';
import { sessionMarkdown } from '../core/session-markdown';
import { assertSessionId } from '../core/session-id';
import { ExtractiveSummarizer } from '../compaction/extractive.summarizer';
import { SummaryCompactor } from '../compaction/summary-compactor';
import { hasRecall } from '../rag/recall.backend';
import { TokenCounter } from '../token-count/token-counter';
import { MemoryMcpToolError, toolErrorCode, toolErrorMessage } from './memory-mcp-tool.error';
import {
  MEMORY_MCP_TOOLS,
  type MemoryMcpToolCall,
  type MemoryMcpToolName,
  type MemoryMcpToolOutcome,
} from './memory-mcp.tools';
import {
  asMessage,
  checkLength,
  checkLimit,
  DESCRIPTIONS,
  describeIssues,
  INPUTS,
  INSTRUCTIONS,
  type ToolArgs,
} from './memory-mcp.inputs';
import {
  MCP_DEFAULT_READ_LIMIT,
  MCP_DEFAULT_SEARCH_LIMIT,
  MCP_MAX_APPEND_MESSAGES,
  MCP_MAX_PAGE_TOKEN_CHARS,
  MCP_MAX_QUERY_CHARS,
  MCP_MAX_RESOURCE_CHARS,
  MCP_MAX_SEARCH_CHARS,
  MCP_MAX_SEARCH_LIMIT,
  MCP_MAX_TRANSCRIPT_MESSAGES,
  MCP_RESOURCES_PAGE_SIZE,
  MCP_TRANSCRIPT_PAGE_SIZE,
} from './memory-mcp.limits';
import { packageVersion } from './package-version';

/** One JSON Schema validator for every server of the process (see `createMemoryMcpServer`). */
let schemaValidator: AjvJsonSchemaValidator | undefined;

/** Options of {@link createMemoryMcpServer}. */
export interface MemoryMcpServerOptions {
  /** The server's name in the MCP handshake. Default `agent-memory`. */
  name?: string;
  /** The server's version in the MCP handshake. Default the package's version. */
  version?: string;
  /** Counts `get_context`'s tokens. Default: a new o200k_base `TokenCounter`. */
  tokenCounter?: TokenCounter;
  /**
   * Runs `compact_session` (the admin server passes its `CompactionService.compact`, so a tool's
   * compaction queues with the others). Default: a `SummaryCompactor` with the offline
   * `ExtractiveSummarizer`, at `compactionThresholdTokens`.
   */
  compact?: (
    sessionId: string,
    opts: { force: boolean; dryRun: boolean },
  ) => Promise<CompactionResult>;
  /** The default compactor's threshold (tokens). Default `DEFAULT_COMPACTION_THRESHOLD_TOKENS`. */
  compactionThresholdTokens?: number;
  /**
   * Called before each tool runs; a throw refuses the call (nothing read or written) and its
   * `code` starts the error result (the admin server throws `FORBIDDEN_ROLE` for a viewer's
   * write). Default: every call is allowed.
   */
  authorize?: (call: MemoryMcpToolCall) => void | Promise<void>;
  /** Called once each tool call has ended, refused ones included (for an audit log). */
  onToolResult?: (outcome: MemoryMcpToolOutcome) => void;
  /**
   * Called with an error that has no `code` (a bug or a driver's raw failure) before the tool
   * answers `INTERNAL_ERROR` without its text (which may name hosts or paths); log it here.
   */
  onError?: (error: unknown, call: MemoryMcpToolCall) => void;
  /**
   * Called after `append_messages` stored a new batch (not on a replay) with the messages stored,
   * e.g. to schedule compaction (`MemoryCompaction.afterTurn(sessionId, saved)`).
   */
  afterAppend?: (sessionId: string, result: SaveResult, saved: readonly Message[]) => void;
}

function sessionNotFound(sessionId: string): MemoryMcpToolError {
  return new MemoryMcpToolError('SESSION_NOT_FOUND', `session "${sessionId}" does not exist`);
}

/** A tool handler: the SDK's request context carries the call's abort signal. */
type ToolHandler<Name extends MemoryMcpToolName> = (
  args: ToolArgs<Name>,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
) => Promise<CallToolResult>;

/** A tool's answer: the value as `structuredContent` and the same as JSON text. */
function answer(value: object): CallToolResult {
  return {
    structuredContent: value as Record<string, unknown>,
    content: [{ type: 'text', text: JSON.stringify(value) }],
  };
}

/**
 * A Model Context Protocol server over any `MemoryBackend`, for any transport (stdio, Streamable
 * HTTP): the tools `list_sessions`, `get_context`, `read_messages`, `append_messages`,
 * `search_memory` (when the backend was wrapped by `withRecall`) and `compact_session`, and each
 * session as the resource `memory://sessions/{sessionId}` (its transcript as Markdown, listed
 * newest first, 50 a page). Results come as `structuredContent` and as JSON text; a failure is a
 * result with `isError: true` whose text starts with the error's code (`INVALID_SESSION_ID: …`,
 * `SESSION_NOT_FOUND: …`, `RECALL_NOT_CONFIGURED: …`): values are checked by the handlers, and an
 * argument of the wrong JSON type is `INVALID_ARGUMENTS: <field>: …`. The caller connects it
 * (`await server.connect(transport)`) and closes it; the backend stays the caller's.
 */
export function createMemoryMcpServer(
  backend: MemoryBackend,
  opts: MemoryMcpServerOptions = {},
): McpServer {
  const server = new McpServer(
    { name: opts.name ?? 'agent-memory', version: opts.version ?? packageVersion() },
    // One validator for every server of the process: each would otherwise build its own Ajv,
    // a millisecond per server, which the admin server pays on every `/mcp` request.
    {
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: (schemaValidator ??= new AjvJsonSchemaValidator()),
    },
  );
  let counter = opts.tokenCounter;
  const tokens = () => (counter ??= new TokenCounter());
  const compact =
    opts.compact ??
    (() => {
      let compactor: SummaryCompactor | undefined;
      const thresholdTokens = opts.compactionThresholdTokens ?? DEFAULT_COMPACTION_THRESHOLD_TOKENS;
      return async (sessionId: string, o: { force: boolean; dryRun: boolean }) => {
        compactor ??= new SummaryCompactor(new ExtractiveSummarizer(), { counter: tokens() });
        return compactor.compact(await backend.open(sessionId), { thresholdTokens, ...o });
      };
    })();

  /** Opens a session that must exist. @throws InvalidSessionIdError, SESSION_NOT_FOUND. */
  async function existing(sessionId: string): Promise<SessionStore> {
    assertSessionId(sessionId);
    if (!(await backend.inspect(sessionId))) throw sessionNotFound(sessionId);
    return backend.open(sessionId);
  }

  /** Runs one tool call: authorise, run, answer; every failure becomes an error result. */
  async function run(
    tool: MemoryMcpToolName,
    args: { sessionId?: unknown; resource?: unknown },
    body: () => Promise<object>,
  ): Promise<CallToolResult> {
    const call: MemoryMcpToolCall = {
      tool,
      changes: MEMORY_MCP_TOOLS[tool].changes,
      sessionId: typeof args.sessionId === 'string' ? args.sessionId : null,
    };
    let code: string | null = null;
    try {
      await opts.authorize?.(call);
      return answer(await body());
    } catch (error) {
      code = toolErrorCode(error);
      if (code === 'INTERNAL_ERROR') opts.onError?.(error, call);
      return {
        isError: true,
        content: [{ type: 'text', text: `${code}: ${toolErrorMessage(code, error)}` }],
      };
    } finally {
      opts.onToolResult?.({
        ...call,
        resource: typeof args.resource === 'string' ? args.resource : null,
        code,
      });
    }
  }

  // Hints for clients: the reads change nothing; a compaction may drop the messages it covers
  // (with `pruneCompacted`, the NATS default), so it is marked destructive.
  const register = <Name extends MemoryMcpToolName>(name: Name) => ({
    ...DESCRIPTIONS[name],
    inputSchema: INPUTS[name],
    annotations: {
      readOnlyHint: !MEMORY_MCP_TOOLS[name].changes,
      destructiveHint: name === 'compact_session',
      openWorldHint: false,
    },
  });

  /** Each tool's handler, on arguments that passed its input schema. */
  const handlers: { [Name in MemoryMcpToolName]: ToolHandler<Name> } = {
    list_sessions: ({ search, resource, limit, after }) =>
      run('list_sessions', { resource }, async () => {
        checkLength('search', search, MCP_MAX_SEARCH_CHARS);
        checkLength('resource', resource, MCP_MAX_RESOURCE_CHARS);
        checkLength('after', after, MCP_MAX_PAGE_TOKEN_CHARS);
        checkLimit(limit, MAX_LIST_LIMIT);
        return backend.list({ search, resource, limit, after });
      }),
    get_context: ({ sessionId }, { signal }) =>
      run('get_context', { sessionId }, async () => {
        const messages = await (await existing(sessionId)).retrieve(undefined, { signal });
        return { messages, tokens: await tokens().countAsync(messages, { signal }) };
      }),
    read_messages: ({ sessionId, after, limit }, { signal }) =>
      run('read_messages', { sessionId }, async () => {
        checkLimit(limit, MAX_LIST_LIMIT);
        if (after !== undefined && !(Number.isSafeInteger(after) && after >= 0)) {
          throw new InvalidQueryError(
            'after',
            `must be a cursor (a whole number of at least 0), got ${after}`,
          );
        }
        const pageSize = limit ?? MCP_DEFAULT_READ_LIMIT;
        const store = await existing(sessionId);
        const read = await store.entries(
          { ...(after !== undefined ? { after } : {}), limit: pageSize + 1 },
          { signal },
        );
        const items: Entry[] = read.slice(0, pageSize);
        const next = read.length > pageSize ? items[items.length - 1]!.cursor : null;
        return { items, next };
      }),
    append_messages: ({ sessionId, messages, idempotencyKey }) =>
      run('append_messages', { sessionId }, async () => {
        if (messages.length === 0 || messages.length > MCP_MAX_APPEND_MESSAGES) {
          throw new InvalidMessageError(
            'messages',
            `must hold 1 to ${MCP_MAX_APPEND_MESSAGES} messages, got ${messages.length}`,
          );
        }
        assertSessionId(sessionId);
        const store = await backend.open(sessionId);
        const saved = messages.map(asMessage);
        const result = await store.save(
          saved,
          idempotencyKey !== undefined ? { idempotencyKey } : undefined,
        );
        if (!result.replayed) opts.afterAppend?.(sessionId, result, saved);
        return result;
      }),
    search_memory: ({ query, sessionId, resource, limit }, { signal }) =>
      run('search_memory', { sessionId, resource }, async () => {
        if (!hasRecall(backend)) {
          throw new MemoryMcpToolError(
            'RECALL_NOT_CONFIGURED',
            'semantic recall is not configured on this memory server, so it cannot search by meaning; use read_messages or list_sessions instead',
          );
        }
        checkLength('query', query, MCP_MAX_QUERY_CHARS);
        checkLength('resource', resource, MCP_MAX_RESOURCE_CHARS);
        checkLimit(limit, MCP_MAX_SEARCH_LIMIT);
        if (sessionId !== undefined) assertSessionId(sessionId);
        const scope = {
          ...(sessionId !== undefined ? { sessionId } : {}),
          ...(resource !== undefined ? { resource } : {}),
          limit: limit ?? MCP_DEFAULT_SEARCH_LIMIT,
        };
        const hits = await backend.search(query, scope, { signal });
        return {
          hits: hits.map(({ sessionId, cursor, text, savedAt, score }) => ({
            sessionId,
            cursor,
            text,
            ...(savedAt ? { savedAt } : {}),
            score,
          })),
        };
      }),
    compact_session: ({ sessionId, force, dryRun }) =>
      run('compact_session', { sessionId }, async () => {
        await existing(sessionId);
        return compact(sessionId, { force: force ?? false, dryRun: dryRun ?? false });
      }),
  };

  for (const name of Object.keys(handlers) as MemoryMcpToolName[]) {
    server.registerTool(name, register(name), handlers[name] as never);
  }

  // The SDK's own `tools/call` answers arguments its schema check refuses with a text that names
  // no code; this one runs the same check and answers them `INVALID_ARGUMENTS: <field>: …`
  // through `run`, so they are authorised and reported like every other failure.
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    if (!Object.hasOwn(handlers, name)) {
      throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
    }
    const tool = name as MemoryMcpToolName;
    const raw = request.params.arguments ?? {};
    const parsed = await z.object(INPUTS[tool]).safeParseAsync(raw);
    if (!parsed.success) {
      return run(tool, raw, () =>
        Promise.reject(new MemoryMcpToolError('INVALID_ARGUMENTS', describeIssues(parsed.error))),
      );
    }
    return (handlers[tool] as ToolHandler<MemoryMcpToolName>)(parsed.data as never, extra);
  });

  server.registerResource(
    'session',
    new ResourceTemplate('memory://sessions/{sessionId}', { list: undefined }),
    {
      title: 'Session transcript',
      description: "A session's summary, metadata and stored messages as Markdown",
      mimeType: 'text/markdown',
    },
    async (uri, variables): Promise<ReadResourceResult> => {
      const raw = variables.sessionId;
      const sessionId = decodeURIComponent(Array.isArray(raw) ? raw.join(',') : (raw ?? ''));
      return {
        contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await transcript(sessionId) }],
      };
    },
  );

  /** The whole kept log, read a page at a time. */
  async function transcript(sessionId: string): Promise<string> {
    assertSessionId(sessionId);
    const info = await backend.inspect(sessionId);
    if (!info) throw new Error(`SESSION_NOT_FOUND: session "${sessionId}" does not exist`);
    const store = await backend.open(sessionId);
    const { snapshot } = await store.loadSnapshot();
    const entries: Entry[] = [];
    while (entries.length < MCP_MAX_TRANSCRIPT_MESSAGES) {
      const after = entries.at(-1)?.cursor;
      const limit = Math.min(
        MCP_TRANSCRIPT_PAGE_SIZE,
        MCP_MAX_TRANSCRIPT_MESSAGES - entries.length,
      );
      const page = await store.entries({ ...(after !== undefined ? { after } : {}), limit });
      entries.push(...page);
      if (page.length < limit) break;
    }
    const last = entries.at(-1)?.cursor;
    const truncated =
      entries.length === MCP_MAX_TRANSCRIPT_MESSAGES && info.stored > entries.length;
    return sessionMarkdown({
      info,
      snapshot,
      entries,
      ...(truncated
        ? {
            footer: `*The log continues after #${last}: ${info.stored - entries.length} more messages (the tool read_messages with after ${last} reads them).*`,
          }
        : {}),
    });
  }

  // The SDK's own `resources/list` asks a template for every resource at once; sessions are
  // listed a page at a time instead, newest first, with the backend's `next` as the cursor.
  server.server.setRequestHandler(
    ListResourcesRequestSchema,
    async (request): Promise<ListResourcesResult> => {
      const page = await backend.list({
        limit: MCP_RESOURCES_PAGE_SIZE,
        ...(request.params?.cursor ? { after: request.params.cursor } : {}),
      });
      return {
        resources: page.items.map((info) => ({
          uri: `memory://sessions/${info.id}`,
          name: info.id,
          ...(info.meta.title ? { title: info.meta.title } : {}),
          description: `${info.stored} messages stored, updated ${info.updatedAt}`,
          mimeType: 'text/markdown',
        })),
        ...(page.next ? { nextCursor: page.next } : {}),
      };
    },
  );
  return server;
}
