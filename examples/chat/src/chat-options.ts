import { parseArgs } from 'node:util';
import { BUILT_IN_DRIVERS } from '@agent-memory/memory';

/** The stores `--backend` chooses from: every built-in driver's kind. */
export const CHAT_BACKENDS: readonly string[] = BUILT_IN_DRIVERS.map((driver) => driver.kind);

/** What the command line chose. */
export interface ChatOptions {
  backend: string;
  sessionId: string;
  /** Compact once the context reaches this many tokens. */
  compactAtTokens: number;
  /** Messages kept word for word after a compaction. */
  keepRecent: number;
  /** Use the built-in echo model even when an LLM is configured. */
  echo: boolean;
  help: boolean;
}

export const CHAT_USAGE = `Usage: npm run example:chat -- [options]

  --backend ${CHAT_BACKENDS.join('|')}   where sessions live (default jsonfile)
  --session <id>                            the session to open or resume (default demo)
  --compact-at <tokens>                     compact once the context reaches this (default 2000)
  --keep-recent <n>                         messages kept verbatim by compaction (default 6)
  --echo                                    use the built-in echo model, no LLM needed
  --help                                    this text

Environment: LLM_BASE_URL, LLM_API_KEY, LLM_MODEL (any OpenAI-compatible server);
MEMORY_DIR (jsonfile, default ./data/chat); DATABASE_URL, MEMORY_PG_TABLE (postgres);
NATS_URL, MEMORY_NATS_BUCKET (nats).`;

/**
 * Reads the command line (`process.argv.slice(2)`).
 * @throws TypeError naming the flag that is unknown or has a bad value.
 */
export function parseChatOptions(args: string[]): ChatOptions {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      backend: { type: 'string', default: 'jsonfile' },
      session: { type: 'string', default: 'demo' },
      'compact-at': { type: 'string', default: '2000' },
      'keep-recent': { type: 'string', default: '6' },
      echo: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const backend = values.backend;
  if (!CHAT_BACKENDS.includes(backend)) {
    throw new TypeError(`--backend must be one of ${CHAT_BACKENDS.join(', ')}, got "${backend}"`);
  }
  return {
    backend,
    sessionId: values.session,
    compactAtTokens: positiveInteger('--compact-at', values['compact-at']),
    keepRecent: positiveInteger('--keep-recent', values['keep-recent']),
    echo: values.echo,
    help: values.help,
  };
}

function positiveInteger(flag: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`${flag} must be a whole number of at least 1, got "${raw}"`);
  }
  return value;
}
