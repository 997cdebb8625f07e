/**
 * The chat example as a user runs it: stdin piped into `examples/chat/src/main.ts`, a real
 * OpenAI-compatible server (the local fake), and a second run that resumes the first's session.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runExample } from '@agent-memory/test-support/example-process';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { testDatabaseUrl, testNatsUrl } from '@agent-memory/test-support/services';

describe('chat example', () => {
  let llm: FakeLlm;
  const dir = mkdtempSync(join(tmpdir(), 'chat-example-'));
  const schemas = new TestSchemas('chat_example');
  const buckets = new TestBuckets('chat_example');

  beforeAll(async () => {
    llm = await startFakeLlm({
      defaultReply: (body) => `you said: ${String(body.messages.at(-1)?.content)}`,
    });
  });
  afterAll(async () => {
    await llm.close();
    await schemas.cleanup();
    await buckets.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const backends: Array<[string, () => NodeJS.ProcessEnv]> = [
    ['jsonfile', () => ({ MEMORY_DIR: dir })],
    ['postgres', () => ({ DATABASE_URL: testDatabaseUrl(), MEMORY_PG_TABLE: schemas.nextTable() })],
    ['nats', () => ({ NATS_URL: testNatsUrl(), MEMORY_NATS_BUCKET: buckets.next() })],
  ];

  it.each(backends)(
    'on %s, a second run resumes the session and sends its earlier messages to the model',
    async (backend, storeEnv) => {
      const env = { ...storeEnv(), LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'chat-model' };
      const args = ['--backend', backend, '--session', `resume-${backend}`];
      const sent = llm.requests.length;

      const first = await runExample('chat', args, { env, stdin: 'My name is Ada.\n' });
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(`New session resume-${backend}.`);
      expect(first.stdout).toContain('assistant> you said: My name is Ada.');

      const second = await runExample('chat', args, {
        env,
        stdin: 'What is my name?\n/history\n/exit\nnot read after /exit\n',
      });
      expect(second.code).toBe(0);
      expect(second.stdout).toContain(
        `Resumed session resume-${backend}: 2 messages so far, nothing summarised yet.`,
      );
      expect(llm.requests.length - sent).toBe(2);
      const resumedTurn = llm.requests[sent + 1]!.body;
      expect(resumedTurn.model).toBe('chat-model');
      expect(resumedTurn.messages.map((m) => [m.role, m.content])).toEqual([
        ['system', expect.any(String)],
        ['user', 'My name is Ada.'],
        ['assistant', 'you said: My name is Ada.'],
        ['user', 'What is my name?'],
      ]);
      expect(second.stdout).toMatch(/#\d+ user: What is my name\?/);
      expect(second.stdout).not.toContain('not read after /exit');
    },
    120_000,
  );

  it('without LLM_BASE_URL says how to set one, and the echo model answers from memory', async () => {
    const env = { MEMORY_DIR: dir };
    const turns = [
      'I am planning a team offsite in Porto for 12 people in June.',
      'The budget is 9000 euros and Marta books the venue.',
      'We need a room with a projector and a vegetarian lunch on both days.',
    ];
    const run = await runExample('chat', ['--session', 'echo-demo', '--keep-recent', '1'], {
      env,
      stdin: `${turns.join('\n')}\n/compact\n/stats\n/context\n/clear\n/stats\n`,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No LLM configured. To talk to a real model');
    expect(run.stdout).toContain('LLM_BASE_URL=');
    expect(run.stdout).toContain(`assistant> echo: ${turns[1]} (I was given 2 earlier messages)`);
    const [, before, after] = /compacted up to #\d+: (\d+) → (\d+) tokens/.exec(run.stdout) ?? [];
    expect(Number(after)).toBeLessThan(Number(before));
    expect(run.stdout).toMatch(/6 messages saved, 6 stored; .*snapshot up to #\d+/);
    expect(run.stdout).toContain(
      'What the model sees next turn, before your message (3 messages):\nuser: Summary of the conversation so far:',
    );
    expect(run.stdout).toContain('session echo-demo cleared');
    expect(run.stdout).toMatch(/0 messages saved, 0 stored; context 0 messages.*snapshot none/);
  }, 120_000);

  it('says a compaction that would not shrink a tiny session saved nothing (no-gain)', async () => {
    const run = await runExample('chat', ['--session', 'tiny', '--keep-recent', '1'], {
      env: { MEMORY_DIR: dir },
      stdin: 'hi\nok\n/compact\n/stats\n',
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /not compacted \(no-gain\): with a summary the context would go from \d+ to \d+ tokens/,
    );
    expect(run.stdout).toMatch(/4 messages saved, 4 stored; .*snapshot none/);
  }, 120_000);

  it('refuses a bad flag with a message naming it', async () => {
    const run = await runExample('chat', ['--backend', 'redis']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--backend must be one of simple, jsonfile, postgres, nats');
  }, 60_000);
});
