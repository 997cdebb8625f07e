import { ConfigValidationError, parseApiConfig } from './api-config';

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseApiConfig(env);
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigValidationError');
}

describe('parseApiConfig', () => {
  it('defaults to the embedded jsonfile backend under ./data on port 3000', () => {
    expect(parseApiConfig({})).toMatchObject({
      backend: 'jsonfile',
      store: { dir: './data/sessions' },
      port: 3000,
      host: '127.0.0.1',
      adminToken: null,
      compactAtTokens: 150000,
      compactKeepRecent: 20,
      compactionMode: 'inline',
      llm: null,
      corsOrigins: [],
    });
  });

  it('reads every setting', () => {
    const config = parseApiConfig({
      MEMORY_BACKEND: 'postgres',
      DATABASE_URL: 'postgres://u@db:5432/app',
      MEMORY_PG_TABLE: 'mem.messages',
      NATS_URL: 'nats://nats:4222',
      MEMORY_NATS_BUCKET: 'sessions',
      MEMORY_ADMIN_TOKEN: 'a-long-enough-token',
      PORT: '8080',
      COMPACT_AT_TOKENS: '9000',
      COMPACT_KEEP_RECENT: '4',
      COMPACTION_MODE: 'nats',
      LLM_BASE_URL: 'http://llm:8000/v1',
      LLM_API_KEY: 'sk-x',
      LLM_MODEL: 'small',
      CORS_ORIGINS: 'http://a.test, http://b.test',
    });
    expect(config).toMatchObject({
      backend: 'postgres',
      store: { url: 'postgres://u@db:5432/app', table: 'mem.messages' },
      databaseUrl: 'postgres://u@db:5432/app',
      natsUrl: 'nats://nats:4222',
      adminToken: 'a-long-enough-token',
      port: 8080,
      compactAtTokens: 9000,
      compactKeepRecent: 4,
      compactionMode: 'nats',
      llm: { baseUrl: 'http://llm:8000/v1', apiKey: 'sk-x', model: 'small' },
      corsOrigins: ['http://a.test', 'http://b.test'],
    });
  });

  it('lists every bad variable at once', () => {
    const problems = problemsOf({
      MEMORY_BACKEND: 'redis',
      PORT: '70000',
      COMPACT_KEEP_RECENT: 'x',
      MEMORY_ADMIN_TOKEN: 'short',
    });
    expect(problems).toHaveLength(4);
    for (const name of ['MEMORY_BACKEND', 'PORT', 'COMPACT_KEEP_RECENT', 'MEMORY_ADMIN_TOKEN']) {
      expect(problems.filter((line) => line.startsWith(name))).toHaveLength(1);
    }
  });

  it('requires the URL of the backend that was chosen', () => {
    expect(problemsOf({ MEMORY_BACKEND: 'postgres' })).toEqual([
      expect.stringMatching(/^DATABASE_URL is required/),
    ]);
    expect(problemsOf({ MEMORY_BACKEND: 'nats' })).toEqual([
      expect.stringMatching(/^NATS_URL is required/),
    ]);
    expect(problemsOf({ MEMORY_BACKEND: 'postgres', DATABASE_URL: 'mysql://x' })).toEqual([
      expect.stringMatching(/^DATABASE_URL must be a URL starting with postgres:/),
    ]);
  });

  it('wants the LLM settings together', () => {
    expect(problemsOf({ LLM_BASE_URL: 'http://llm/v1' })).toEqual([
      expect.stringMatching(/LLM_MODEL is required/),
    ]);
    expect(problemsOf({ LLM_MODEL: 'm' })).toEqual([
      expect.stringMatching(/LLM_BASE_URL is required/),
    ]);
  });

  it('refuses a NATS bucket name NATS would refuse', () => {
    const nats = { MEMORY_BACKEND: 'nats', NATS_URL: 'nats://nats:4222' };
    expect(problemsOf({ ...nats, MEMORY_NATS_BUCKET: 'a.b' })).toEqual([
      expect.stringMatching(/MEMORY_NATS_BUCKET/),
    ]);
  });
});
