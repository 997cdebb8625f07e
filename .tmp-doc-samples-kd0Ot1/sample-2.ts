import { jsonFileBackend, MemoryModule, MemoryService, InjectMemory } from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { Injectable, Module } from '@nestjs/common';
@Injectable()
class Conversations {
  constructor(
    readonly chat: MemoryService, // the unnamed instance
    @InjectMemory('archive') readonly archive: MemoryService,
  ) {}
}

@Module({
  imports: [
    MemoryModule.forRoot({ backend: () => jsonFileBackend({ dir: './data/chat' }) }),
    MemoryModule.forRoot({
      name: 'archive',
      backend: () => postgresBackend({ url: process.env.DATABASE_URL! }),
    }),
  ],
  providers: [Conversations],
})
class ChatModule {}

export {};
