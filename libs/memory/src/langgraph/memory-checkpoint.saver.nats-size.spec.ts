/**
 * On a NATS server that takes small messages (`max_payload` 4096), a thread whose values are
 * larger is stored split over several keys and replayed exactly; messages its session cannot
 * take (a NATS session is one value) are kept in the checkpoint storage's message log instead,
 * and the graph goes on.
 */
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { testAgentGraph, texts } from '@agent-memory/test-support/langgraph-graph';
import { useSmallPayloadNats } from '@agent-memory/test-support/nats';
import { checkpointStorageFor } from './checkpoint-storage-for';
import { MemoryCheckpointSaver } from './memory-checkpoint.saver';

describe('MemoryCheckpointSaver on NATS with a small max_payload', () => {
  const smallBackend = useSmallPayloadNats('lg_size', 4096);

  it('splits values larger than the server takes, and replays them exactly', async () => {
    const backend = smallBackend();
    const saver = await MemoryCheckpointSaver.open(backend);
    const graph = testAgentGraph(saver);
    const config = { configurable: { thread_id: 'big' } };
    const long = `${'a long question, '.repeat(700)}end`;
    await graph.invoke({ messages: [new HumanMessage('short')] }, config);
    expect(await (await backend.open('big')).retrieve()).toHaveLength(4);
    const result = await graph.invoke({ messages: [new HumanMessage(long)] }, config);
    const fresh = await MemoryCheckpointSaver.open(backend);
    const replayed = (await fresh.getTuple(config))!.checkpoint.channel_values
      .messages as BaseMessage[];
    expect(texts(replayed)).toEqual(texts(result.messages as BaseMessage[]));
    expect(replayed[4]!.content).toBe(long);
    // The session could not take the turn with the long message: it kept the first one, and the
    // second turn's four messages are in the checkpoint storage's log.
    expect(await (await backend.open('big')).retrieve()).toHaveLength(4);
    expect((await (await checkpointStorageFor(backend)).messageLogHead('big')).count).toBe(4);
  });
});
