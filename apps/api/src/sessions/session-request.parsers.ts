import {
  MAX_LIST_LIMIT,
  assertIdempotencyKey,
  assertMetaEntry,
  MemoryError,
  type ListSessionsQuery,
  type Message,
} from '@agent-memory/memory';
import { invalidField } from '../errors/api-http.error';

/** Most messages one `POST /messages` may append. */
export const MAX_APPEND_MESSAGES = 500;
/** Most content parts, and most tool calls, the messages of one `POST /messages` may hold together. */
export const MAX_APPEND_PARTS = 10_000;
export const MAX_APPEND_TOOL_CALLS = 2_000;
/** Most keys one `PATCH /meta` may set, and the longest key and value (characters). */
export const MAX_META_KEYS = 64;
export const MAX_META_KEY_LENGTH = 128;
export const MAX_META_VALUE_LENGTH = 4096;
/** Longest `search` and `after` query values (characters). */
export const MAX_SEARCH_LENGTH = 256;
export const MAX_TOKEN_LENGTH = 1024;
/** Default page size of a session's messages. */
export const DEFAULT_MESSAGES_LIMIT = 100;

const META_KEY_PATTERN = /^[A-Za-z0-9_.:-]+$/;

type Query = Record<string, unknown>;

function optionalString(query: Query, name: string, maxLength: number): string | undefined {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string')
    throw invalidField('INVALID_QUERY', name, 'give it once, as a string');
  if (value.length > maxLength) {
    throw invalidField('INVALID_QUERY', name, `at most ${maxLength} characters`);
  }
  return value;
}

function optionalInteger(query: Query, name: string, min: number, max: number): number | undefined {
  const value = optionalString(query, name, 20);
  if (value === undefined) return undefined;
  const parsed = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw invalidField('INVALID_QUERY', name, `must be a whole number from ${min} to ${max}`);
  }
  return parsed;
}

/**
 * `GET /api/sessions?limit&after&search&resource`. An empty `resource=` is refused, as erase and
 * export refuse it: it would otherwise list every session.
 * @throws ApiHttpError 400 naming the bad parameter.
 */
export function parseListQuery(query: Query): ListSessionsQuery {
  if (query.resource === '') {
    throw invalidField(
      'INVALID_QUERY',
      'resource',
      'give one non-empty resource (leave the parameter out to list every session)',
    );
  }
  return {
    limit: optionalInteger(query, 'limit', 1, MAX_LIST_LIMIT),
    after: optionalString(query, 'after', MAX_TOKEN_LENGTH),
    search: optionalString(query, 'search', MAX_SEARCH_LENGTH),
    resource: optionalString(query, 'resource', MAX_META_VALUE_LENGTH),
  };
}

/**
 * The `:resource` of `DELETE /api/resources/:resource` (the value of the sessions' `resource`
 * meta, so no longer than a meta value); the store checks the rest (empty, NUL, lone surrogates).
 * @throws ApiHttpError 400 naming `resource`.
 */
export function parseResource(resource: string): string {
  if (resource.length > MAX_META_VALUE_LENGTH) {
    throw invalidField('INVALID_QUERY', 'resource', `at most ${MAX_META_VALUE_LENGTH} characters`);
  }
  return resource;
}

/** `GET /api/sessions/:id/messages?after&limit`: `after` is a cursor (exclusive). */
export function parseMessagesQuery(query: Query): { after: number | null; limit: number } {
  return {
    after: optionalInteger(query, 'after', 0, Number.MAX_SAFE_INTEGER) ?? null,
    limit: optionalInteger(query, 'limit', 1, MAX_LIST_LIMIT) ?? DEFAULT_MESSAGES_LIMIT,
  };
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidField(
      'INVALID_BODY',
      'body',
      'must be a JSON object (send Content-Type: application/json)',
    );
  }
  return body as Record<string, unknown>;
}

/** How many items the lists named `name` (in any case) of the messages hold together. */
function totalItems(messages: readonly unknown[], name: string): number {
  let total = 0;
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    for (const [key, value] of Object.entries(message)) {
      if (Array.isArray(value) && key.toLowerCase() === name) total += value.length;
    }
  }
  return total;
}

/**
 * `POST /api/sessions/:id/messages` body `{ messages }`: 1 to {@link MAX_APPEND_MESSAGES}
 * messages of the message model (ours or Phero's shape), holding at most {@link MAX_APPEND_PARTS}
 * parts and {@link MAX_APPEND_TOOL_CALLS} tool calls together (counted before any is read). Only
 * the shape is checked here: the store's `save` validates the messages themselves and throws
 * InvalidMessageError naming the path (`messages[2].role`), before it writes anything.
 * @throws ApiHttpError 400 `INVALID_BODY`.
 */
export function parseAppendBody(body: unknown): Message[] {
  const { messages } = bodyObject(body);
  if (!Array.isArray(messages))
    throw invalidField('INVALID_BODY', 'messages', 'must be an array of messages');
  if (messages.length === 0 || messages.length > MAX_APPEND_MESSAGES) {
    throw invalidField(
      'INVALID_BODY',
      'messages',
      `must hold 1 to ${MAX_APPEND_MESSAGES} messages`,
    );
  }
  const parts = totalItems(messages, 'parts');
  if (parts > MAX_APPEND_PARTS) {
    throw invalidField(
      'INVALID_BODY',
      'messages',
      `the messages of one request hold at most ${MAX_APPEND_PARTS} parts together, got ${parts}`,
    );
  }
  const toolCalls = totalItems(messages, 'toolcalls');
  if (toolCalls > MAX_APPEND_TOOL_CALLS) {
    throw invalidField(
      'INVALID_BODY',
      'messages',
      `the messages of one request hold at most ${MAX_APPEND_TOOL_CALLS} tool calls together, got ${toolCalls}`,
    );
  }
  // Each message is validated once, by the store's save (which names the path the same way).
  return messages as Message[];
}

/**
 * The `Idempotency-Key` header of `POST …/messages`: absent, or 1–255 visible ASCII characters.
 * @throws ApiHttpError 400 `INVALID_IDEMPOTENCY_KEY` naming the header.
 */
export function parseIdempotencyKey(header: unknown): string | undefined {
  if (header === undefined) return undefined;
  try {
    assertIdempotencyKey(header);
  } catch (error) {
    throw invalidField('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key', (error as Error).message);
  }
  return header;
}

/** `PATCH /api/sessions/:id/meta` body `{ key: value }`; values are strings, '' removes the key. */
export function parseMetaBody(body: unknown): Record<string, string> {
  const entries = Object.entries(bodyObject(body));
  if (entries.length === 0 || entries.length > MAX_META_KEYS) {
    throw invalidField('INVALID_META', 'body', `must set 1 to ${MAX_META_KEYS} keys`);
  }
  // No prototype: a "__proto__" key is data here, refused below rather than silently dropped.
  const meta: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of entries) {
    if (key.length > MAX_META_KEY_LENGTH || !META_KEY_PATTERN.test(key)) {
      throw invalidField(
        'INVALID_META',
        key.slice(0, MAX_META_KEY_LENGTH),
        `a key is 1 to ${MAX_META_KEY_LENGTH} letters, digits, "_", ".", ":" or "-"`,
      );
    }
    if (typeof value !== 'string')
      throw invalidField('INVALID_META', key, "must be a string ('' removes the key)");
    if (value.length > MAX_META_VALUE_LENGTH) {
      throw invalidField('INVALID_META', key, `at most ${MAX_META_VALUE_LENGTH} characters`);
    }
    try {
      assertMetaEntry(key, value);
    } catch (error) {
      if (error instanceof MemoryError) throw invalidField('INVALID_META', key, error.message);
      throw error;
    }
    meta[key] = value;
  }
  return meta;
}

/** `POST /api/sessions/:id/compact` body `{ force?, dryRun? }`; an empty body is fine. */
export function parseCompactBody(body: unknown): { force: boolean; dryRun: boolean } {
  const fields =
    body === undefined ||
    body === null ||
    (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0)
      ? {}
      : bodyObject(body);
  const flag = (name: 'force' | 'dryRun'): boolean => {
    const value = fields[name];
    if (value === undefined) return false;
    if (typeof value !== 'boolean')
      throw invalidField('INVALID_BODY', name, 'must be true or false');
    return value;
  };
  return { force: flag('force'), dryRun: flag('dryRun') };
}
