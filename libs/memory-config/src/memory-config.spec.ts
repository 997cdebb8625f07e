import { userMessage, type MemoryBackend } from '@agent-memory/memory';
import { hasRecall, type RecallBackend } from '@agent-memory/memory/rag';
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
      store: { dir: './data/sessions', minFreeMb: 16 },
      compactAtTokens: 150000,
      compactKeepRecent: 20,
      compactionMode: 'inline',
      compactionSubject: 'agent-memory.compaction.check',
      compactionQueue: 'agent-memory-compaction',
      llm: null,
    });
  });

  it('reads the jsonfile free-space floor in MiB (16 by default, 0 turns it off) and names a bad one', () => {
    expect(parseMemoryConfig({}).store).toMatchObject({ minFreeMb: 16 });
    expect(parseMemoryConfig({ MEMORY_JSONFILE_MIN_FREE_MB: '0' }).store).toMatchObject({
      minFreeMb: 0,
    });
    expect(parseMemoryConfig({ MEMORY_JSONFILE_MIN_FREE_MB: '512' }).store).toMatchObject({
      minFreeMb: 512,
    });
    expect(problemsOf({ MEMORY_JSONFILE_MIN_FREE_MB: '1.5' })).toEqual([
      expect.stringMatching(/^MEMORY_JSONFILE_MIN_FREE_MB="1.5" must be a whole number/),
    ]);
  });

  it('reads the NATS request timeout and write budget, and names a bad one', () => {
    expect(
      parseMemoryConfig({
        MEMORY_BACKEND: 'nats',
        NATS_URL: 'nats://127.0.0.1:4222',
        MEMORY_NATS_TIMEOUT_MS: '2000',
        MEMORY_NATS_WRITE_BUDGET_MS: '30000',
      }).store,
    ).toMatchObject({ timeoutMs: 2000, writeBudgetMs: 30000 });
    const problems = problemsOf({
      MEMORY_BACKEND: 'nats',
      NATS_URL: 'nats://127.0.0.1:4222',
      MEMORY_NATS_TIMEOUT_MS: '0',
      MEMORY_NATS_WRITE_BUDGET_MS: '-1',
    });
    expect(problems.map((line) => line.split(/[= ]/)[0])).toEqual([
      'MEMORY_NATS_TIMEOUT_MS',
      'MEMORY_NATS_WRITE_BUDGET_MS',
    ]);
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

  it('leaves recall off by default and reads MEMORY_RECALL_* when an embedder is named', () => {
    expect(parseMemoryConfig({}).recall).toBeNull();
    expect(
      parseMemoryConfig({
        DATABASE_URL: 'postgres://u@h:5432/db',
        MEMORY_RECALL_EMBEDDER: 'hashed',
        MEMORY_RECALL_STORE: 'pgvector',
        MEMORY_RECALL_TOP_K: '6',
        MEMORY_RECALL_SCOPE: 'resource',
        MEMORY_RECALL_RESOURCE_KEY: 'user',
        MEMORY_RECALL_MIN_SCORE: '0.25',
      }).recall,
    ).toEqual({
      embedder: 'hashed',
      embedderUrl: null,
      embedderApiKey: null,
      embedderModel: null,
      embedderDimensions: null,
      store: 'pgvector',
      databaseUrl: 'postgres://u@h:5432/db',
      pgTable: null,
      topK: 6,
      messageRange: 1,
      scope: 'resource',
      resourceMetaKey: 'user',
      minScore: 0.25,
      queryTimeoutMs: 2000,
    });
  });

  it('names every bad recall variable', () => {
    expect(problemsOf({ MEMORY_RECALL_TOP_K: '3' })).toEqual([
      'MEMORY_RECALL_EMBEDDER (hashed, offline or openai) is required when MEMORY_RECALL_TOP_K is set',
    ]);
    const problems = problemsOf({
      MEMORY_RECALL_EMBEDDER: 'openai',
      MEMORY_RECALL_STORE: 'pgvector',
      MEMORY_RECALL_TOP_K: '0',
      MEMORY_RECALL_SCOPE: 'tenant',
      MEMORY_RECALL_MIN_SCORE: '2',
      MEMORY_RECALL_PG_TABLE: 'a;drop',
    });
    expect(problems.map((line) => line.split(/[= ]/)[0])).toEqual([
      'MEMORY_RECALL_EMBEDDER_URL',
      'MEMORY_RECALL_EMBEDDER_MODEL',
      'MEMORY_RECALL_DATABASE_URL',
      'MEMORY_RECALL_PG_TABLE',
      'MEMORY_RECALL_TOP_K',
      'MEMORY_RECALL_SCOPE',
      'MEMORY_RECALL_MIN_SCORE',
    ]);
    expect(problemsOf({ MEMORY_RECALL_EMBEDDER: 'bert' })).toEqual([
      'MEMORY_RECALL_EMBEDDER="bert" is not one of hashed, offline, openai',
    ]);
  });

  it('with an embedder named, the backend recalls; the worker leaves recall off', async () => {
    const config = parseMemoryConfig({
      MEMORY_BACKEND: 'simple',
      MEMORY_RECALL_EMBEDDER: 'hashed',
      MEMORY_RECALL_EMBEDDER_DIMENSIONS: '64',
    });
    const api = (await memoryModuleOptionsFromConfig(config).backend) as MemoryBackend;
    expect(hasRecall(api)).toBe(true);
    const session = await api.open('s');
    await session.save([userMessage('the locker code is 7731'), userMessage('weather is mild')]);
    await (api as RecallBackend).recallIndexer.whenIdle();
    // Recall quotes only what left the context: cover both messages with a snapshot.
    const { tail } = await session.loadSnapshot();
    await session.saveSnapshot({ summary: 'small talk' }, tail[1]!.cursor, null);
    const recalled = await (api as RecallBackend).recall('s', 'what is the locker code');
    expect(recalled.ranges[0]!.messages[0]!.text).toBe('the locker code is 7731');
    await api.close();
    const worker = (await memoryModuleOptionsFromConfig(config, { recall: false })
      .backend) as MemoryBackend;
    expect(hasRecall(worker)).toBe(false);
    await worker.close();
  });
});
