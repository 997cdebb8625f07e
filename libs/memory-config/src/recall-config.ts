import type { EnvReader } from './memory-config';

/** Semantic recall's settings (`MEMORY_RECALL_*`); null in {@link MemoryConfig} turns recall off. */
export interface RecallConfig {
  /**
   * `MEMORY_RECALL_EMBEDDER`: `hashed` (lexical, deterministic, for tests and demos), `offline`
   * (the Universal Sentence Encoder in-process, no download) or `openai` (any OpenAI-compatible
   * `/embeddings` endpoint). Unset: recall is off.
   */
  embedder: 'hashed' | 'offline' | 'openai';
  /**
   * `MEMORY_RECALL_EMBEDDER_URL`, `MEMORY_RECALL_EMBEDDER_API_KEY`, `MEMORY_RECALL_EMBEDDER_MODEL`:
   * the `openai` embedder's endpoint (`…/v1`), key and model (URL and model required with it).
   */
  embedderUrl: string | null;
  embedderApiKey: string | null;
  embedderModel: string | null;
  /** `MEMORY_RECALL_EMBEDDER_DIMENSIONS`: the vectors' length (openai: default 1536; hashed: default 256). */
  embedderDimensions: number | null;
  /** `MEMORY_RECALL_STORE`: `memory` (in-process, rebuilt at start-up) or `pgvector`. Default memory. */
  store: 'memory' | 'pgvector';
  /** `MEMORY_RECALL_DATABASE_URL`: the pgvector database. Default `DATABASE_URL`. */
  databaseUrl: string | null;
  /** `MEMORY_RECALL_PG_TABLE`: the vectors' table, `table` or `schema.table`. Default `memory_vectors`. */
  pgTable: string | null;
  /** `MEMORY_RECALL_TOP_K`: messages found per query. Default 4. */
  topK: number;
  /** `MEMORY_RECALL_MESSAGE_RANGE`: neighbours quoted on each side of a found message. Default 1. */
  messageRange: number;
  /** `MEMORY_RECALL_SCOPE`: `session` (default) or `resource` (every session of the same resource). */
  scope: 'session' | 'resource';
  /** `MEMORY_RECALL_RESOURCE_KEY`: the session meta field naming its resource. Default `resource`. */
  resourceMetaKey: string;
  /** `MEMORY_RECALL_MIN_SCORE`: leave out hits below this cosine similarity (-1 to 1). Default none. */
  minScore: number | null;
  /**
   * `MEMORY_RECALL_QUERY_TIMEOUT_MS`: the one deadline of a query's embedding; past it a turn gets
   * its context without recall and the recall route answers 503. Default 2000.
   */
  queryTimeoutMs: number;
}

/** Every `MEMORY_RECALL_*` variable {@link readRecallConfig} reads. */
export const RECALL_ENV_VARS = [
  'MEMORY_RECALL_EMBEDDER',
  'MEMORY_RECALL_EMBEDDER_URL',
  'MEMORY_RECALL_EMBEDDER_API_KEY',
  'MEMORY_RECALL_EMBEDDER_MODEL',
  'MEMORY_RECALL_EMBEDDER_DIMENSIONS',
  'MEMORY_RECALL_STORE',
  'MEMORY_RECALL_DATABASE_URL',
  'MEMORY_RECALL_PG_TABLE',
  'MEMORY_RECALL_TOP_K',
  'MEMORY_RECALL_MESSAGE_RANGE',
  'MEMORY_RECALL_SCOPE',
  'MEMORY_RECALL_RESOURCE_KEY',
  'MEMORY_RECALL_MIN_SCORE',
  'MEMORY_RECALL_QUERY_TIMEOUT_MS',
] as const;

const EMBEDDERS = ['hashed', 'offline', 'openai'] as const;
const STORES = ['memory', 'pgvector'] as const;
const SCOPES = ['session', 'resource'] as const;
const PG_TABLE_PATTERN = /^([A-Za-z_][A-Za-z0-9_]*\.)?[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads the recall settings, adding one line per bad variable to `reader.problems`.
 * @returns null when `MEMORY_RECALL_EMBEDDER` is unset (recall off; any other `MEMORY_RECALL_*`
 *   set then is reported, since it would silently do nothing).
 */
export function readRecallConfig(
  reader: EnvReader,
  databaseUrl: string | null,
): RecallConfig | null {
  if (reader.string('MEMORY_RECALL_EMBEDDER') === null) {
    const stray = RECALL_ENV_VARS.filter((name) => reader.string(name) !== null);
    if (stray.length > 0) {
      reader.problems.push(
        `MEMORY_RECALL_EMBEDDER (hashed, offline or openai) is required when ${stray.join(', ')} ${
          stray.length === 1 ? 'is' : 'are'
        } set`,
      );
    }
    return null;
  }
  const embedder = reader.oneOf('MEMORY_RECALL_EMBEDDER', EMBEDDERS, 'hashed');
  const embedderUrl = reader.url('MEMORY_RECALL_EMBEDDER_URL', ['http:', 'https:']);
  const embedderModel = reader.string('MEMORY_RECALL_EMBEDDER_MODEL');
  if (embedder === 'openai') {
    if (reader.string('MEMORY_RECALL_EMBEDDER_URL') === null) {
      reader.problems.push(
        'MEMORY_RECALL_EMBEDDER_URL is required with MEMORY_RECALL_EMBEDDER=openai (https://host/v1)',
      );
    }
    if (embedderModel === null) {
      reader.problems.push(
        'MEMORY_RECALL_EMBEDDER_MODEL is required with MEMORY_RECALL_EMBEDDER=openai',
      );
    }
  }
  const store = reader.oneOf('MEMORY_RECALL_STORE', STORES, 'memory');
  const recallDatabaseUrl =
    reader.url('MEMORY_RECALL_DATABASE_URL', ['postgres:', 'postgresql:']) ?? databaseUrl;
  if (
    store === 'pgvector' &&
    reader.string('MEMORY_RECALL_DATABASE_URL') === null &&
    reader.string('DATABASE_URL') === null
  ) {
    reader.problems.push(
      'MEMORY_RECALL_DATABASE_URL or DATABASE_URL is required with MEMORY_RECALL_STORE=pgvector',
    );
  }
  const pgTable = reader.string('MEMORY_RECALL_PG_TABLE');
  if (pgTable !== null && !PG_TABLE_PATTERN.test(pgTable)) {
    reader.problems.push(
      `MEMORY_RECALL_PG_TABLE=${JSON.stringify(pgTable)} must be "table" or "schema.table" (letters, digits, "_")`,
    );
  }
  const hasDimensions = reader.string('MEMORY_RECALL_EMBEDDER_DIMENSIONS') !== null;
  if (embedder === 'offline' && hasDimensions) {
    reader.problems.push(
      'MEMORY_RECALL_EMBEDDER_DIMENSIONS cannot be set with MEMORY_RECALL_EMBEDDER=offline (always 512)',
    );
  }
  return {
    embedder,
    embedderUrl,
    embedderApiKey: reader.string('MEMORY_RECALL_EMBEDDER_API_KEY'),
    embedderModel,
    embedderDimensions: hasDimensions
      ? reader.integer('MEMORY_RECALL_EMBEDDER_DIMENSIONS', 0, 1, 16000)
      : null,
    store,
    databaseUrl: recallDatabaseUrl,
    pgTable,
    topK: reader.integer('MEMORY_RECALL_TOP_K', 4, 1, 100),
    messageRange: reader.integer('MEMORY_RECALL_MESSAGE_RANGE', 1, 0, 50),
    scope: reader.oneOf('MEMORY_RECALL_SCOPE', SCOPES, 'session'),
    resourceMetaKey: reader.string('MEMORY_RECALL_RESOURCE_KEY') ?? 'resource',
    minScore: readMinScore(reader),
    queryTimeoutMs: reader.integer('MEMORY_RECALL_QUERY_TIMEOUT_MS', 2000, 1, 600_000),
  };
}

function readMinScore(reader: EnvReader): number | null {
  const value = reader.string('MEMORY_RECALL_MIN_SCORE');
  if (value === null) return null;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < -1 || parsed > 1) {
    reader.problems.push(
      `MEMORY_RECALL_MIN_SCORE=${JSON.stringify(value)} must be a number from -1 to 1`,
    );
    return null;
  }
  return parsed;
}
