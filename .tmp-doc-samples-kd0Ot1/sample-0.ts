declare const apiKey: string;
declare const session: import('@agent-memory/memory').SessionStore;
import { Injectable, Logger, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import {
  jsonFileBackend,
  MemoryModule,
  MemoryService,
  OpenAiCompatibleClient,
  systemMessage,
  textContent,
  userMessage,
} from '@agent-memory/memory';

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

export {};
