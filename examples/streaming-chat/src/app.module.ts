import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { jsonFileBackend, MemoryExceptionFilter, MemoryModule } from '@agent-memory/memory';
import { CHAT_MODEL, chatModelFrom } from './chat-model';
import { StreamChatController } from './stream-chat.controller';
import { StreamChatService } from './stream-chat.service';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true }),
    MemoryModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService) => ({
        // A factory: the backend is made at start-up, never when this file is imported.
        backend: () => jsonFileBackend({ dir: config.get('MEMORY_DIR', './data/streaming-chat') }),
      }),
    }),
  ],
  controllers: [StreamChatController],
  providers: [
    StreamChatService,
    { provide: CHAT_MODEL, inject: [ConfigService], useFactory: chatModelFrom },
    { provide: APP_FILTER, useClass: MemoryExceptionFilter },
  ],
})
export class AppModule {}
