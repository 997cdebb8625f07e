import type { MemoryBackend } from '../core/backend.interface';
import type { LlmClient } from '../core/llm-client.interface';
import { ExtractiveSummarizer } from '../compaction/extractive.summarizer';
import type { Summarizer } from '../compaction/summarizer.interface';
import {
  DEFAULT_COMPACTION_HISTORY_LIMIT,
  DEFAULT_COMPACTION_KEEP_RECENT,
  DEFAULT_COMPACTION_MAX_ATTEMPTS,
  DEFAULT_COMPACTION_MAX_CONCURRENT,
  DEFAULT_COMPACTION_QUEUE,
  DEFAULT_COMPACTION_REQUEST_TIMEOUT_MS,
  DEFAULT_COMPACTION_SHUTDOWN_GRACE_MS,
  DEFAULT_COMPACTION_SUBJECT,
  DEFAULT_COMPACTION_THRESHOLD_TOKENS,
} from '../core/defaults';
import type { CompactionClientProxy } from './compaction-worker.protocol';
import type {
  MemoryCompactionOptions,
  MemoryModuleOptions,
} from './memory-module-options.interface';

/** Where `mode: 'nats'` publishes, after defaults. */
export interface ResolvedCompactionNats {
  /** Set when the module opens its own client; null when `client` was given. */
  servers: string[] | null;
  client: CompactionClientProxy | null;
  subject: string;
  queue: string;
  requestTimeoutMs: number;
  maxAttempts: number;
}

/** The compaction settings with every default filled in. */
export interface ResolvedCompactionConfig {
  thresholdTokens: number;
  keepRecent: number;
  /** What `SummaryCompactor` summarises with. */
  summarizer: LlmClient | Summarizer;
  mode: 'inline' | 'nats';
  nats: ResolvedCompactionNats | null;
  maxConcurrent: number;
  historyLimit: number;
  shutdownGraceMs: number;
}

const BACKEND_METHODS = ['open', 'list', 'inspect', 'delete', 'check', 'close'] as const;

/**
 * Checks the module options at start-up.
 * @throws TypeError naming the option that is missing or of the wrong kind.
 * @throws RangeError naming the number that is out of range.
 */
export function validateMemoryModuleOptions(options: MemoryModuleOptions | undefined): void {
  if (!options || typeof options !== 'object') {
    throw new TypeError('MemoryModule needs options: MemoryModule.forRoot({ backend })');
  }
  if (!options.backend) {
    throw new TypeError(
      'MemoryModule needs a "backend", such as jsonFileBackend({ dir }) or simpleBackend({ capacity })',
    );
  }
  if (options.compaction !== undefined) resolveCompactionConfig(options.compaction);
}

/** @throws TypeError when `value` is not a {@link MemoryBackend}. */
export function assertMemoryBackend(value: unknown): asserts value is MemoryBackend {
  const missing = BACKEND_METHODS.filter(
    (name) => typeof (value as Record<string, unknown> | null)?.[name] !== 'function',
  );
  if (missing.length > 0) {
    throw new TypeError(
      `MemoryModule "backend" is not a MemoryBackend (missing ${missing.join(', ')}); pass what ` +
        'simpleBackend, jsonFileBackend, postgresBackend or natsBackend returns',
    );
  }
}

/**
 * Fills in the compaction defaults and validates what was given.
 * @throws TypeError / RangeError naming the offending `compaction.*` option.
 */
export function resolveCompactionConfig(
  options: MemoryCompactionOptions = {},
): ResolvedCompactionConfig {
  const mode = options.mode ?? 'inline';
  if (mode !== 'inline' && mode !== 'nats') {
    throw new TypeError(`compaction.mode must be 'inline' or 'nats', got ${JSON.stringify(mode)}`);
  }
  if (options.llm !== undefined && options.summarizer !== undefined) {
    throw new TypeError('give compaction.llm or compaction.summarizer, not both');
  }
  if (options.llm !== undefined && typeof options.llm?.complete !== 'function') {
    throw new TypeError('compaction.llm must be an LlmClient (an object with complete(messages))');
  }
  if (options.summarizer !== undefined && typeof options.summarizer?.summarize !== 'function') {
    throw new TypeError(
      'compaction.summarizer must be a Summarizer (an object with summarize(input))',
    );
  }
  return {
    thresholdTokens: positiveInteger(
      'compaction.thresholdTokens',
      options.thresholdTokens,
      DEFAULT_COMPACTION_THRESHOLD_TOKENS,
    ),
    keepRecent: wholeNumber(
      'compaction.keepRecent',
      options.keepRecent,
      DEFAULT_COMPACTION_KEEP_RECENT,
    ),
    summarizer: options.llm ?? options.summarizer ?? new ExtractiveSummarizer(),
    mode,
    nats: mode === 'nats' ? resolveNats(options) : null,
    maxConcurrent: positiveInteger(
      'compaction.maxConcurrent',
      options.maxConcurrent,
      DEFAULT_COMPACTION_MAX_CONCURRENT,
    ),
    historyLimit: positiveInteger(
      'compaction.historyLimit',
      options.historyLimit,
      DEFAULT_COMPACTION_HISTORY_LIMIT,
    ),
    shutdownGraceMs: wholeNumber(
      'compaction.shutdownGraceMs',
      options.shutdownGraceMs,
      DEFAULT_COMPACTION_SHUTDOWN_GRACE_MS,
    ),
  };
}

function resolveNats(options: MemoryCompactionOptions): ResolvedCompactionNats {
  const nats = options.nats;
  const servers = nats?.servers === undefined ? [] : [nats.servers].flat();
  const client = nats?.client ?? null;
  if (client && servers.length > 0) {
    throw new TypeError('give compaction.nats.servers or compaction.nats.client, not both');
  }
  if (!client && (servers.length === 0 || servers.some((s) => typeof s !== 'string' || s === ''))) {
    throw new TypeError(
      "compaction.mode 'nats' needs compaction.nats.servers (such as 'nats://127.0.0.1:4222') or compaction.nats.client",
    );
  }
  if (client && typeof client.send !== 'function') {
    throw new TypeError(
      'compaction.nats.client must be a ClientProxy (ClientProxyFactory.create or ClientsModule)',
    );
  }
  return {
    servers: client ? null : servers,
    client,
    subject: nonEmpty('compaction.nats.subject', nats?.subject, DEFAULT_COMPACTION_SUBJECT),
    queue: nonEmpty('compaction.nats.queue', nats?.queue, DEFAULT_COMPACTION_QUEUE),
    requestTimeoutMs: positiveInteger(
      'compaction.nats.requestTimeoutMs',
      nats?.requestTimeoutMs,
      DEFAULT_COMPACTION_REQUEST_TIMEOUT_MS,
    ),
    maxAttempts: positiveInteger(
      'compaction.nats.maxAttempts',
      nats?.maxAttempts,
      DEFAULT_COMPACTION_MAX_ATTEMPTS,
    ),
  };
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a whole number of at least 1, got ${String(value)}`);
  }
  return value;
}

function wholeNumber(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a whole number of at least 0, got ${String(value)}`);
  }
  return value;
}

function nonEmpty(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TypeError(`${name} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}
