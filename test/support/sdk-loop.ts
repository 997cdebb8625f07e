/**
 * What the SDK loop specs (`libs/memory/src/<adapter>/*.loop.spec.ts`) share: each runs an agent
 * SDK's own tool-calling loop, two turns about the weather, on the JSON-file and PostgreSQL
 * stores against a real local OpenAI-compatible server.
 *
 * ```ts
 * describeSdkLoopOnStores('LangChain', (loop) => {
 *   it('…', async () => {
 *     const { llm, backend } = loop; // set once the block's beforeAll has run
 *     scriptWeatherTurns(llm);
 *     for (const text of WEATHER_TURNS) await turn(llm, backend, text);
 *   });
 * });
 * ```
 */
import type { MemoryBackend } from '@agent-memory/memory';
import {
  jsonFileHarness,
  postgresHarness,
  type ConformanceHarness,
} from '@agent-memory/test-conformance';
import { startFakeLlm, type FakeLlm } from './fake-llm.server';

/** The user's two turns: the first makes the model call the `weather` tool. */
export const WEATHER_TURNS = ['What is the weather in Oslo?', 'And should I take an umbrella?'];

/**
 * Queues the server's answers to {@link WEATHER_TURNS}: a call of `weather` for Oslo (with
 * `content` as the text beside it, none by default), the answer once the tool's result is in,
 * then the second turn's answer.
 */
export function scriptWeatherTurns(llm: FakeLlm, content: string | null = null): void {
  llm.replyWith({
    content,
    toolCalls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'weather', arguments: '{"city":"Oslo"}' },
      },
    ],
  });
  llm.reply('Rain in Oslo, 9 °C.');
  llm.reply('Yes, take one.');
}

/** The server and the store one block's tests share; filled in by the block's `beforeAll`. */
export interface SdkLoopContext {
  llm: FakeLlm;
  backend: MemoryBackend;
}

/**
 * Declares `tests` once per store, in blocks titled `<title> on JSON files` and
 * `<title> on PostgreSQL`, each with its own fake LLM server and fresh backend, closed after.
 */
export function describeSdkLoopOnStores(
  title: string,
  tests: (loop: SdkLoopContext) => void,
): void {
  describe.each<[string, () => ConformanceHarness]>([
    ['JSON files', jsonFileHarness],
    ['PostgreSQL', postgresHarness],
  ])(`${title} on %s`, (_name, makeHarness) => {
    const harness = makeHarness();
    const loop = {} as SdkLoopContext;
    let destroy: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      loop.llm = await startFakeLlm();
      const created = await harness.create();
      loop.backend = created.backend;
      destroy = created.destroy;
    });
    afterAll(async () => {
      await destroy?.();
      await harness.destroy?.();
      await loop.llm?.close();
    });

    tests(loop);
  });
}
