import {
  assistantMessage,
  ExtractiveSummarizer,
  SummaryCompactor,
  userMessage,
} from '@agent-memory/memory';
import { natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import { startThrowawayNats, type ThrowawayServer } from '@agent-memory/test-support/services';

const MAX_PAYLOAD = 64 * 1024;

describe('nats: compaction keeps a long session under the payload limit', () => {
  let server: ThrowawayServer;
  let backend: NatsBackend;

  beforeAll(async () => {
    server = await startThrowawayNats({ maxPayload: MAX_PAYLOAD });
    backend = await natsBackend({ servers: server.url, bucket: 'long_run' });
  });
  afterAll(async () => {
    await backend?.close();
    await server?.dispose();
  });

  it('stores 400 turns (far more than one value holds) when compacting after each turn', async () => {
    const session = await backend.open('long-run');
    const compactor = new SummaryCompactor(new ExtractiveSummarizer(), { keepRecent: 10 });
    const paragraph =
      'The assistant explains one more detail of the deployment plan in a full sentence.';
    let written = 0;
    let compactions = 0;
    for (let turn = 0; turn < 400; turn++) {
      const messages = [
        userMessage(`turn ${turn}: ${paragraph}`),
        assistantMessage(`reply ${turn}: ${paragraph} ${paragraph}`),
      ];
      written += Buffer.byteLength(JSON.stringify(messages));
      await session.save(messages);
      const result = await compactor.compact(session, { thresholdTokens: 2000 });
      if (result.compacted) compactions++;
    }
    expect(written).toBeGreaterThan(MAX_PAYLOAD * 2);
    expect(compactions).toBeGreaterThan(5);
    const info = await backend.inspect('long-run');
    expect(info).toMatchObject({ messages: 800, hasSnapshot: true });
    expect(info!.stored).toBeLessThan(60);
    const { tail } = await session.loadSnapshot();
    expect(tail[tail.length - 1]!.message.parts[0]!.text).toMatch(/^reply 399:/);
  });
});
