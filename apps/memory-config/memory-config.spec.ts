import type { MemoryBackend } from '@agent-memory/memory';
import { ConfigValidationError } from './config-validation.error';
import { parseMemoryConfig } from './memory-config';
import { memoryModuleOptionsFromConfig } from './memory-options.factory';

function problemsOf(env: Record<string, string>, opts?: { requireNats?: boolean }): string[] {
  try {
    parseMemoryConfig(env, opts);
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems;
    throw error;
  }
  return [];
}

describe('parseMemoryConfig', () => {
  it('defaults to jsonfile under ./data/sessions with inline compaction at 150000 tokens', () => {
    expect(parseMemoryConfig({})).toMatchObject({
      backend: 'jsonfile',
      memoryDir: './data/sessions',
      compactAtTokens: 150000,
      compactKeepRecent: 20,
      compactionMode: 'inline',
      compactionSubject: 'agent-memory.compaction.check',
      compactionQueue: 'agent-memory-compaction',
      llm: null,
    });
  });

  it('lists every bad variable at once', () => {
    const problems = problemsOf({
      MEMORY_BACKEND: 'redis',
      COMPACT_AT_TOKENS: '0',
      COMPACT_KEEP_RECENT: 'x',
      COMPACTION_NATS_SUBJECT: 'a.*',
      LLM_MODEL: 'm',
    });
    expect(problems.map((line) => line.split(/[= ]/)[0])).toEqual([
      'MEMORY_BACKEND',
      'LLM_BASE_URL',
      'COMPACT_AT_TOKENS',
      'COMPACT_KEEP_RECENT',
      'COMPACTION_NATS_SUBJECT',
    ]);
  });

  it('requires NATS_URL for the nats backend, nats compaction, and the worker', () => {
    expect(problemsOf({ MEMORY_BACKEND: 'nats' })).toEqual([
      expect.stringMatching(/^NATS_URL is required with MEMORY_BACKEND=nats/),
    ]);
    expect(problemsOf({ COMPACTION_MODE: 'nats' })).toEqual([
      expect.stringMatching(/^NATS_URL is required with COMPACTION_MODE=nats/),
    ]);
    expect(problemsOf({}, { requireNats: true })).toEqual([
      expect.stringMatching(/^NATS_URL is required with the compaction worker/),
    ]);
    expect(problemsOf({ NATS_URL: 'http://x' })).toEqual([
      expect.stringMatching(/^NATS_URL must be a URL starting with nats:/),
    ]);
  });

  it('turns into MemoryModule options; the worker forces inline compaction', async () => {
    const config = parseMemoryConfig({
      MEMORY_BACKEND: 'simple',
      NATS_URL: 'nats://127.0.0.1:4222',
      COMPACTION_MODE: 'nats',
      COMPACT_AT_TOKENS: '900',
      COMPACT_KEEP_RECENT: '3',
      LLM_BASE_URL: 'http://127.0.0.1:1/v1',
      LLM_MODEL: 'small',
    });
    const api = memoryModuleOptionsFromConfig(config);
    expect(api.compaction).toMatchObject({
      mode: 'nats',
      thresholdTokens: 900,
      keepRecent: 3,
      nats: { servers: 'nats://127.0.0.1:4222', subject: 'agent-memory.compaction.check' },
    });
    expect(typeof api.compaction!.llm!.complete).toBe('function');
    expect((await (api.backend as Promise<MemoryBackend>)).kind).toBe('simple');
    const worker = memoryModuleOptionsFromConfig(config, { mode: 'inline' });
    expect(worker.compaction).toMatchObject({ mode: 'inline' });
    expect(worker.compaction!.nats).toBeUndefined();
  });
});
