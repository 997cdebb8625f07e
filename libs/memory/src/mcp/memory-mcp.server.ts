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
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { MAX_LIST_LIMIT, type MemoryBackend } from '../core/backend.interface';
import type { CompactionResult } from '../core/compaction-job';
import { DEFAULT_COMPACTION_THRESHOLD_TOKENS } from '../core/defaults';
import { InvalidMessageError, InvalidQueryError } from '../core/errors';
import type { Entry, SaveResult, SessionStore } from '../core/memory.interface';
import { assistantMessage, systemMessage, userMessage, type Message } from '../core/message';
import { assertSessionId } from '../core/session-id';
import { ExtractiveSummarizer } from '../compaction/extractive.summarizer';
import { SummaryCompactor } from '../compaction/summary-compactor';
import { hasRecall } from '../rag/recall.backend';
import { TokenCounter } from '../tokens/token-counter';
import { MemoryMcpToolError, toolErrorCode, toolErrorMessage } from './memory-mcp-tool.error';
import {
  MEMORY_MCP_TOOLS,
  type MemoryMcpToolCall,
  type MemoryMcpToolName,
  type MemoryMcpToolOutcome,
} from './memory-mcp.tools';
import { sessionTranscriptMarkdown } from './session-transcript.markdown';

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
/** Longest `list_sessions` `search`, `resource` and `after` values (characters). */
const MAX_SEARCH_CHARS = 256;
const MAX_RESOURCE_CHARS = 4096;
const MAX_PAGE_TOKEN_CHARS = 1024;
/** Sessions per `resources/list` page. */
const RESOURCES_PAGE_SIZE = 50;
/** Log entries read per round trip while rendering a transcript. */
const TRANSCRIPT_PAGE_SIZE = 500;
/** Most log entries one transcript shows (the rest is a `read_messages` away). */
export const MCP_MAX_TRANSCRIPT_MESSAGES = 2000;

let version: string | undefined;
let schemaValidator: AjvJsonSchemaValidator | undefined;

/** `@agent-memory/memory`'s version, read once from its package.json (beside `src` and `dist`). */
function packageVersion(): string {
  if (version === undefined) {
    try {
      const manifest = readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8');
      version = (JSON.parse(manifest) as { version?: string }).version ?? '0.0.0';
    } catch {
      version = '0.0.0';
    }
  }
  return version;
}

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
  /** Called after `append_messages` stored a new batch (not on a replay), e.g. to schedule compaction. */
  afterAppend?: (sessionId: string, result: SaveResult) => void;
}

const INSTRUCTIONS = `Conversation memory of LLM agents, one session per conversation.
list_sessions finds sessions; get_context shows what the agent will see next turn (summary, pinned
messages, recent messages) with its token count; read_messages pages through the stored log by
cursor; search_memory finds earlier messages by meaning; append_messages records messages;
compact_session summarises older messages when the context is large. A failed call's text starts
with an error code such as SESSION_NOT_FOUND or INVALID_SESSION_ID.`;

const sessionIdInput = z
  .string()
  .describe(
    'Session id: 1-128 characters, letters, digits, "_", "=", "-", in dot-separated tokens (as list_sessions shows it)',
  );

/** The tools' input shapes: the SDK turns them into the JSON Schema clients see. */
const INPUTS = {
  list_sessions: {
    search: z
      .string()
      .optional()
      .describe('Case-insensitive text to find in the session id or its title'),
    resource: z
      .string()
      .optional()
      .describe('Only the sessions of this resource (the user, customer or tenant they belong to)'),
    limit: z
      .number()
      .int()
      .optional()
      .describe(`Sessions per page, 1 to ${MAX_LIST_LIMIT}; default 50`),
    after: z
      .string()
      .optional()
      .describe('The `next` token of the previous page, to read the page after it'),
  },
  get_context: { sessionId: sessionIdInput },
  read_messages: {
    sessionId: sessionIdInput,
    after: z
      .number()
      .int()
      .optional()
      .describe(
        'Read the messages after this cursor (the `next` of the previous page); default from the start',
      ),
    limit: z
      .number()
      .int()
      .optional()
      .describe(`Messages per page, 1 to ${MAX_LIST_LIMIT}; default ${MCP_DEFAULT_READ_LIMIT}`),
  },
  append_messages: {
    sessionId: sessionIdInput.describe(
      'Session to append to (a new id starts a session); 1-128 characters, letters, digits, "_", "=", "-", dot-separated',
    ),
    messages: z
      .array(
        z.object({
          role: z.enum(['user', 'assistant', 'system']).describe('Who said it'),
          text: z.string().describe('The message text'),
        }),
      )
      .describe(
        `The messages to append, oldest first (1 to ${MCP_MAX_APPEND_MESSAGES}), saved as one batch`,
      ),
    idempotencyKey: z
      .string()
      .optional()
      .describe(
        'Any unique string (a UUID): a retry with the same key stores nothing twice and returns the first result',
      ),
  },
  search_memory: {
    query: z.string().describe('What to look for, in natural language'),
    sessionId: sessionIdInput.optional().describe('Search only this session'),
    resource: z
      .string()
      .optional()
      .describe('Search only the sessions of this resource (user, customer, tenant)'),
    limit: z
      .number()
      .int()
      .optional()
      .describe(`Most hits, 1 to ${MCP_MAX_SEARCH_LIMIT}; default ${MCP_DEFAULT_SEARCH_LIMIT}`),
  },
  compact_session: {
    sessionId: sessionIdInput,
    force: z
      .boolean()
      .optional()
      .describe('Summarise even when the context is below the compaction threshold'),
    dryRun: z
      .boolean()
      .optional()
      .describe('Work out what would be summarised and report it, saving nothing'),
  },
} as const;

const DESCRIPTIONS: Record<MemoryMcpToolName, { title: string; description: string }> = {
  list_sessions: {
    title: 'List sessions',
    description:
      'Lists conversation sessions, most recently updated first, with their message counts, metadata and snapshot state. Returns { items, next }; pass `next` as `after` for the next page (null on the last).',
  },
  get_context: {
    title: 'Get context',
    description:
      "What the agent will see on the session's next turn: the summary of older messages, pinned messages and the recent messages, with the context's size in tokens. Returns { messages, tokens }.",
  },
  read_messages: {
    title: 'Read messages',
    description:
      "Pages through a session's stored log, oldest first, each message with its cursor and save time. Returns { items, next }; pass `next` as `after` for the next page (null on the last).",
  },
  append_messages: {
    title: 'Append messages',
    description:
      'Appends text messages to a session as one batch (all or nothing), starting the session if it is new. Returns { first, last, replayed }: the cursors of the first and last message saved.',
  },
  search_memory: {
    title: 'Search memory',
    description:
      'Finds earlier messages by meaning (semantic recall) in one session, the sessions of one resource, or every session, best match first. Returns { hits: [{ sessionId, cursor, text, savedAt, score }] }.',
  },
  compact_session: {
    title: 'Compact session',
    description:
      "Summarises a session's older messages into a snapshot so its context shrinks (only when the context reaches the threshold, unless `force`). Returns { compacted, reason?, upTo?, tokensBefore, tokensAfter, snapshot? }.",
  },
};

function sessionNotFound(sessionId: string): MemoryMcpToolError {
  return new MemoryMcpToolError('SESSION_NOT_FOUND', `session "${sessionId}" does not exist`);
}

function checkLength(field: string, value: string | undefined, max: number): void {
  if (value !== undefined && value.length > max) {
    throw new InvalidQueryError(field, `at most ${max} characters, got ${value.length}`);
  }
}

function checkLimit(value: number | undefined, max: number): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1 && value <= max)) {
    throw new InvalidQueryError('limit', `must be a whole number from 1 to ${max}, got ${value}`);
  }
}

function asMessage(input: { role: 'user' | 'assistant' | 'system'; text: string }): Message {
  switch (input.role) {
    case 'user':
      return userMessage(input.text);
    case 'assistant':
      return assistantMessage(input.text);
    case 'system':
      return systemMessage(input.text);
  }
}

/** A tool's arguments once its input schema accepted them. */
type ToolArgs<Name extends MemoryMcpToolName> = z.infer<z.ZodObject<(typeof INPUTS)[Name]>>;
/** A tool handler: the SDK's request context carries the call's abort signal. */
type ToolHandler<Name extends MemoryMcpToolName> = (
  args: ToolArgs<Name>,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
) => Promise<CallToolResult>;

/** What the schema check refused, field by field: `limit: Invalid input: expected number…`. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`)
    .join('; ');
}

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
        checkLength('search', search, MAX_SEARCH_CHARS);
        checkLength('resource', resource, MAX_RESOURCE_CHARS);
        checkLength('after', after, MAX_PAGE_TOKEN_CHARS);
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
        const result = await store.save(
          messages.map(asMessage),
          idempotencyKey !== undefined ? { idempotencyKey } : undefined,
        );
        if (!result.replayed) opts.afterAppend?.(sessionId, result);
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
        checkLength('resource', resource, MAX_RESOURCE_CHARS);
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
      const limit = Math.min(TRANSCRIPT_PAGE_SIZE, MCP_MAX_TRANSCRIPT_MESSAGES - entries.length);
      const page = await store.entries({ ...(after !== undefined ? { after } : {}), limit });
      entries.push(...page);
      if (page.length < limit) break;
    }
    const truncated =
      entries.length === MCP_MAX_TRANSCRIPT_MESSAGES && info.stored > entries.length;
    return sessionTranscriptMarkdown(info, snapshot, entries, truncated);
  }

  // The SDK's own `resources/list` asks a template for every resource at once; sessions are
  // listed a page at a time instead, newest first, with the backend's `next` as the cursor.
  server.server.setRequestHandler(
    ListResourcesRequestSchema,
    async (request): Promise<ListResourcesResult> => {
      const page = await backend.list({
        limit: RESOURCES_PAGE_SIZE,
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
