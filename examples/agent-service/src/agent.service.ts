import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  MemoryService,
  OpenAiCompatibleClient,
  systemMessage,
  textContent,
  userMessage,
} from '@agent-memory/memory';

/** What one turn answers. */
export interface AgentReply {
  answer: string;
  /** False when the answer could not be stored (the user still gets it). */
  saved: boolean;
}

/** The agent: each turn sends the session's memory and the question to the model. */
@Injectable()
export class AgentService {
  private readonly logger = new Logger(AgentService.name);
  private readonly llm: OpenAiCompatibleClient;

  constructor(
    private readonly memory: MemoryService,
    config: ConfigService,
  ) {
    this.llm = new OpenAiCompatibleClient({
      baseUrl: config.getOrThrow<string>('LLM_BASE_URL'),
      apiKey: config.get<string>('LLM_API_KEY', ''),
      model: config.getOrThrow<string>('LLM_MODEL'),
    });
  }

  /**
   * One turn: retrieve the session's context, call the model, save the question and the answer
   * in one batch, schedule compaction. `idempotencyKey` makes a client's retry store nothing twice.
   */
  async reply(
    sessionId: string,
    question: string,
    opts: { signal?: AbortSignal; idempotencyKey?: string } = {},
  ): Promise<AgentReply> {
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
      opts,
    );
    if (saveError) this.logger.warn(saveError.message);
    return { answer, saved: !saveError };
  }
}
