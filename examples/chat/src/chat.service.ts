import { Inject, Injectable } from '@nestjs/common';
import {
  CompactionService,
  MemoryService,
  systemMessage,
  textContent,
  TokenCounter,
  userMessage,
  type CompactionResult,
  type Entry,
  type Message,
  type SessionInfo,
} from '@agent-memory/memory';
import type { ChatModel } from './chat-model';
import { CHAT_MODEL, CHAT_SESSION_ID } from './chat.injection';

const SYSTEM_PROMPT = systemMessage('You are a helpful assistant. Answer briefly.');

/** What `/stats` shows. */
export interface ChatStats {
  /** Messages ever saved, and kept now; null for a session never written. */
  info: SessionInfo | null;
  /** Tokens of what the model will see next turn. */
  contextTokens: number;
  contextMessages: number;
}

/** One chat session on the module's memory: turns, and what the REPL's commands show. */
@Injectable()
export class ChatService {
  private readonly tokens = new TokenCounter();

  constructor(
    private readonly memory: MemoryService,
    private readonly compaction: CompactionService,
    @Inject(CHAT_MODEL) private readonly model: ChatModel,
    @Inject(CHAT_SESSION_ID) readonly sessionId: string,
  ) {}

  /** The session as stored, or null when it was never written (to say whether we resume). */
  info(): Promise<SessionInfo | null> {
    return this.memory.backend.inspect(this.sessionId);
  }

  /** One turn: the history and the question go to the model; both messages are saved. */
  async turn(question: string): Promise<string> {
    const { answer, saveError } = await this.memory.runTurn(
      this.sessionId,
      userMessage(question),
      async ({ history, input, signal }) => {
        const { message } = await this.model.llm.complete([SYSTEM_PROMPT, ...history, ...input], {
          signal,
        });
        return { answer: textContent(message), messages: [message] };
      },
    );
    if (saveError) return `${answer}\n(warning: this turn was not saved: ${saveError.message})`;
    return answer;
  }

  /** The stored log, oldest first, including what a snapshot covers. */
  async history(): Promise<Entry[]> {
    return (await this.memory.session(this.sessionId)).entries();
  }

  /** Exactly what the model will be given next turn (before the new question). */
  async context(): Promise<Message[]> {
    return (await this.memory.session(this.sessionId)).retrieve();
  }

  async stats(): Promise<ChatStats> {
    const context = await this.context();
    return {
      info: await this.info(),
      contextTokens: await this.tokens.countAsync(context),
      contextMessages: context.length,
    };
  }

  /** Compacts now, whatever the threshold. */
  compact(): Promise<CompactionResult> {
    return this.compaction.compact(this.sessionId, { force: true });
  }

  async clear(): Promise<void> {
    await (await this.memory.session(this.sessionId)).clear();
  }
}
