import { Module, type DynamicModule } from '@nestjs/common';
import { MemoryModule } from '@agent-memory/memory';
import { createChatBackend } from './chat-backend';
import type { ChatModel } from './chat-model';
import type { ChatOptions } from './chat-options';
import { ChatService } from './chat.service';
import { CHAT_MODEL, CHAT_SESSION_ID } from './chat.injection';

/** The chat's memory (backend and compaction from the command line) and its service. */
@Module({})
export class ChatModule {
  static register(options: ChatOptions, model: ChatModel): DynamicModule {
    return {
      module: ChatModule,
      imports: [
        MemoryModule.forRoot({
          backend: () => createChatBackend(options.backend, process.env),
          compaction: {
            thresholdTokens: options.compactAtTokens,
            keepRecent: options.keepRecent,
            // The echo model cannot summarise; the offline extractive summariser can.
            ...(model.isEcho ? {} : { llm: model.llm }),
          },
        }),
      ],
      providers: [
        ChatService,
        { provide: CHAT_MODEL, useValue: model },
        { provide: CHAT_SESSION_ID, useValue: options.sessionId },
      ],
    };
  }
}
