/**
 * The README's example, verbatim: an app module with an `AgentService` that keeps its
 * conversations in `MemoryModule`, configured from the environment.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, Logger, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { Test } from '@nestjs/testing';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import {
  jsonFileBackend,
  MemoryModule,
  MemoryService,
  OpenAiCompatibleClient,
  systemMessage,
  textContent,
  userMessage,
} from '..';

// ---- README snippet starts ----
@Injectable()
export class AgentService {
  private readonly logger = new Logger(AgentService.name);
  private readonly llm: OpenAiCompatibleClient;

  constructor(
    private readonly memory: MemoryService,
    config: ConfigService,
  ) {
    this.llm = new OpenAiCompatibleClient({
      baseUrl: config.getOrThrow('LLM_BASE_URL'),
      apiKey: config.get('LLM_API_KEY', ''),
      model: config.getOrThrow('LLM_MODEL'),
    });
  }

  /** One turn: the session's history goes to the model; the question and the answer are saved. */
  async reply(sessionId: string, question: string, signal?: AbortSignal): Promise<string> {
    const { answer, saveError } = await this.memory.runTurn(
      sessionId,
      userMessage(question),
      async ({ history, input, signal }) => {
        const { message } = await this.llm.complete(
          [systemMessage('You are a helpful assistant.'), ...history, ...input],
          { signal },
        );
        return { answer: textContent(message), messages: [message] };
      },
      { signal },
    );
    if (saveError) this.logger.warn(saveError.message); // the user still gets the answer
    return answer;
  }
}

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true }),
    MemoryModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService) => ({
        // A factory: the backend is made at start-up, never when this file is imported.
        backend: () => jsonFileBackend({ dir: config.get('MEMORY_DIR', './data/sessions') }),
        compaction: { thresholdTokens: Number(config.get('COMPACT_AT_TOKENS', 150_000)) },
      }),
    }),
  ],
  providers: [AgentService],
  exports: [AgentService],
})
export class AgentModule {}
// ---- README snippet ends ----

describe('the README example (AgentModule)', () => {
  let llm: FakeLlm;
  let dir: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    llm = await startFakeLlm();
    dir = mkdtempSync(join(tmpdir(), 'memory-example-'));
    Object.assign(process.env, { LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'small', MEMORY_DIR: dir });
  });
  afterAll(async () => {
    process.env = saved;
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs two turns; the second one sees the first', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AgentModule] }).compile();
    const agent = moduleRef.get(AgentService);
    llm.reply('Hello Ada!');
    await expect(agent.reply('demo.ada', 'Hi, I am Ada')).resolves.toBe('Hello Ada!');
    llm.reply('You are Ada.');
    await expect(agent.reply('demo.ada', 'Who am I?')).resolves.toBe('You are Ada.');

    const sent = llm.requests[1].body.messages.map((m) => [m.role, m.content]);
    expect(sent).toEqual([
      ['system', 'You are a helpful assistant.'],
      ['user', 'Hi, I am Ada'],
      ['assistant', 'Hello Ada!'],
      ['user', 'Who am I?'],
    ]);
    const history = await (await moduleRef.get(MemoryService).session('demo.ada')).retrieve();
    expect(history.map(textContent)).toEqual([
      'Hi, I am Ada',
      'Hello Ada!',
      'Who am I?',
      'You are Ada.',
    ]);
    await moduleRef.close();
  });
});
