import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { MemoryService, type Message } from '@agent-memory/memory';
import {
  AI_SDK_KEY,
  createChatStore,
  fromModelMessages,
  toModelMessages,
  type ChatStore,
} from '@agent-memory/memory/ai-sdk';
import {
  convertToModelMessages,
  pipeUIMessageStreamToResponse,
  streamText,
  type LanguageModel,
  type UIMessage,
} from 'ai';
import { CHAT_MODEL } from './chat-model';

const SYSTEM_PROMPT = 'You are a helpful assistant.';

/**
 * One chat turn streamed to the client: the history comes from the store, the model's answer is
 * streamed as the AI SDK's UI message stream while it is generated, and the question and the
 * answer are saved once, in one batch, through `MemoryService.runTurn`.
 */
@Injectable()
export class StreamChatService {
  private readonly logger = new Logger(StreamChatService.name);
  private readonly chats: ChatStore;

  constructor(
    private readonly memory: MemoryService,
    @Inject(CHAT_MODEL) private readonly model: LanguageModel,
  ) {
    this.chats = createChatStore(memory.backend);
  }

  /** The chat's messages as `UIMessage`s: what a client shows after a reload. */
  load(chatId: string): Promise<UIMessage[]> {
    return this.chats.loadChat(chatId);
  }

  /**
   * Streams the answer to `message` into `res` and stores the turn. `idempotencyKey` (the
   * request's, or the message's id) makes a retried request store nothing twice. When the client
   * goes away mid-answer, the model call is aborted and the question is still stored.
   */
  async stream(
    chatId: string,
    message: UIMessage,
    res: ServerResponse,
    opts: { idempotencyKey: string },
  ): Promise<void> {
    const input = tagged(
      fromModelMessages(await convertToModelMessages([message])),
      message.id,
      message,
    );
    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const answerId = randomUUID();
    let turnStored!: () => void;
    // The stream ends only once the turn is stored, so a client that reloads right after the
    // answer finds it (the text itself reaches the client as it is generated).
    const stored = new Promise<void>((resolve) => (turnStored = resolve));
    try {
      const turn = await this.memory.runTurn(
        chatId,
        input,
        async ({ history, input: inputs, signal }) => {
          const result = streamText({
            model: this.model,
            system: SYSTEM_PROMPT,
            messages: toModelMessages([...history, ...inputs]),
            abortSignal: signal,
          });
          const stream = result
            .toUIMessageStream({ generateMessageId: () => answerId })
            .pipeThrough(new TransformStream({ flush: () => stored }));
          void pipeUIMessageStreamToResponse({ response: res, stream });
          const { messages } = await result.response;
          const answer = tagged(fromModelMessages(messages), answerId);
          return { answer: await result.text, messages: answer };
        },
        { signal: abort.signal, idempotencyKey: opts.idempotencyKey },
      );
      if (turn.saveError) this.logger.warn(turn.saveError.message);
    } finally {
      turnStored();
    }
  }
}

/**
 * `messages` marked as coming from the `UIMessage` `uiMessageId` (kept whole when given), so
 * `loadChat` gives the client back the ids (and the message) it saw.
 */
function tagged(messages: Message[], uiMessageId: string, ui?: UIMessage): Message[] {
  return messages.map((message, index) => {
    const own = (message.providerData?.[AI_SDK_KEY] ?? {}) as Record<string, unknown>;
    const data: Record<string, unknown> = { ...own, uiMessageId };
    if (ui && index === 0) data.ui = JSON.parse(JSON.stringify(ui)) as unknown;
    return { ...message, providerData: { ...message.providerData, [AI_SDK_KEY]: data } };
  });
}
