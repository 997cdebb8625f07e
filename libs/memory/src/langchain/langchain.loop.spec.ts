/**
 * A LangChain chat model loop (tool call, tool result, answer) and `RunnableWithMessageHistory`,
 * run on our stores against a real local OpenAI-compatible server: the second turn's request
 * holds the first turn exactly as LangChain sends it from its own in-memory history.
 */
import type { FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import {
  describeSdkLoopOnStores,
  scriptWeatherTurns,
  WEATHER_TURNS as TURNS,
} from '@agent-memory/test-support/sdk-loop';
import { InMemoryChatMessageHistory } from '@langchain/core/chat_history';
import { HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts';
import { RunnableWithMessageHistory } from '@langchain/core/runnables';
import type { BaseListChatMessageHistory } from '@langchain/core/chat_history';
import { ChatOpenAI } from '@langchain/openai';
import { AgentMemoryChatMessageHistory } from '.';

function model(llm: FakeLlm) {
  return new ChatOpenAI({
    model: 'fake-model',
    apiKey: 'k',
    configuration: { baseURL: llm.baseUrl },
    maxRetries: 0,
  }).bindTools([
    {
      type: 'function',
      function: {
        name: 'weather',
        description: 'The weather in a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    },
  ]);
}

/** One turn of a tool-calling loop on `history`, adding what it produced to it. */
async function turn(llm: FakeLlm, history: BaseListChatMessageHistory, text: string) {
  const added: BaseMessage[] = [new HumanMessage(text)];
  for (;;) {
    const answer = await model(llm).invoke([...(await history.getMessages()), ...added]);
    added.push(answer);
    if (!answer.tool_calls?.length) break;
    for (const call of answer.tool_calls) {
      added.push(
        new ToolMessage({
          tool_call_id: call.id!,
          content: JSON.stringify({ city: call.args.city, sky: 'rain' }),
        }),
      );
    }
  }
  await history.addMessages(added);
}

describeSdkLoopOnStores('LangChain', (loop) => {
  it('a tool-calling loop sends the second turn exactly as from an in-memory history', async () => {
    const { llm, backend } = loop;
    scriptWeatherTurns(llm);
    const inMemory = new InMemoryChatMessageHistory();
    for (const text of TURNS) await turn(llm, inMemory, text);
    const reference = llm.requests.map((request) => request.body.messages);

    scriptWeatherTurns(llm);
    for (const text of TURNS) {
      await turn(llm, await AgentMemoryChatMessageHistory.open(backend, 'lc.weather'), text);
    }
    const viaStore = llm.requests.slice(reference.length).map((request) => request.body.messages);

    expect(viaStore).toEqual(reference);
    expect(viaStore[viaStore.length - 1]!.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    const stored = await (await backend.open('lc.weather')).retrieve();
    expect(stored[1]).toMatchObject({
      role: 'assistant',
      toolCalls: [{ id: 'call_1', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
    });
  });

  it('serves RunnableWithMessageHistory', async () => {
    const { llm, backend } = loop;
    const chain = ChatPromptTemplate.fromMessages([
      ['system', 'Be brief.'],
      new MessagesPlaceholder('history'),
      ['human', '{question}'],
    ]).pipe(model(llm));
    const withHistory = new RunnableWithMessageHistory({
      runnable: chain,
      getMessageHistory: (sessionId: string) =>
        AgentMemoryChatMessageHistory.open(backend, sessionId),
      inputMessagesKey: 'question',
      historyMessagesKey: 'history',
    });
    const config = { configurable: { sessionId: 'lc.runnable' } };
    llm.reply('Hello Ada.');
    await withHistory.invoke({ question: 'I am Ada.' }, config);
    llm.reply('You are Ada.');
    await withHistory.invoke({ question: 'Who am I?' }, config);

    expect(llm.requests[llm.requests.length - 1]!.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'I am Ada.' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'Who am I?' },
    ]);
  });
});
