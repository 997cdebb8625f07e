import { z } from 'zod';
import { MAX_LIST_LIMIT } from '../core/backend.interface';
import { InvalidQueryError } from '../core/errors';
import { assistantMessage, systemMessage, userMessage, type Message } from '../core/message';
import {
  MCP_DEFAULT_READ_LIMIT,
  MCP_DEFAULT_SEARCH_LIMIT,
  MCP_MAX_APPEND_MESSAGES,
  MCP_MAX_SEARCH_LIMIT,
} from './memory-mcp.limits';
import type { MemoryMcpToolName } from './memory-mcp.tools';

/** What the server tells a client about itself in the handshake (shown to the model). */
export const INSTRUCTIONS = `Conversation memory of LLM agents, one session per conversation.
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
export const INPUTS = {
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

/** Each tool's title and description, written for a model choosing a tool. */
export const DESCRIPTIONS: Record<MemoryMcpToolName, { title: string; description: string }> = {
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

/** A tool's arguments once its input schema accepted them. */
export type ToolArgs<Name extends MemoryMcpToolName> = z.infer<z.ZodObject<(typeof INPUTS)[Name]>>;

/** What the schema check refused, field by field: `limit: Invalid input: expected number…`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`)
    .join('; ');
}

/** @throws InvalidQueryError when `value` is longer than `max` characters. */
export function checkLength(field: string, value: string | undefined, max: number): void {
  if (value !== undefined && value.length > max) {
    throw new InvalidQueryError(field, `at most ${max} characters, got ${value.length}`);
  }
}

/** @throws InvalidQueryError when `value` is not a whole number from 1 to `max`. */
export function checkLimit(value: number | undefined, max: number): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1 && value <= max)) {
    throw new InvalidQueryError('limit', `must be a whole number from 1 to ${max}, got ${value}`);
  }
}

/** A tool's `{ role, text }` as a message of the model. */
export function asMessage(input: { role: 'user' | 'assistant' | 'system'; text: string }): Message {
  switch (input.role) {
    case 'user':
      return userMessage(input.text);
    case 'assistant':
      return assistantMessage(input.text);
    case 'system':
      return systemMessage(input.text);
  }
}
