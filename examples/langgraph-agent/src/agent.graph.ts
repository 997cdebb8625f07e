import { tool } from '@langchain/core/tools';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { z } from 'zod';

/** The agent's one tool: the weather of a city (a fixed table, so runs are repeatable). */
export const weatherTool = tool(
  async ({ city }: { city: string }) => {
    const known: Record<string, string> = { lisbon: '21 °C, sunny', oslo: '3 °C, snow' };
    return known[city.toLowerCase()] ?? `no forecast for ${city}`;
  },
  {
    name: 'get_weather',
    description: 'The weather now in a city.',
    schema: z.object({ city: z.string().describe('The city, such as Lisbon') }),
  },
);

/**
 * A tool-calling agent: the model answers or calls `get_weather`; the tool's result goes back to
 * the model. `checkpointer` keeps each thread between runs.
 */
export function agentGraph(model: BaseChatModel, checkpointer: BaseCheckpointSaver) {
  const withTools = model.bindTools!([weatherTool]);
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await withTools.invoke(state.messages)] }))
    .addNode('tools', async (state) => {
      // Invoked with a whole tool call, a LangChain tool returns its ToolMessage.
      const calls = (state.messages.at(-1) as AIMessage).tool_calls ?? [];
      return {
        messages: await Promise.all(
          calls.map((call) => weatherTool.invoke({ ...call, type: 'tool_call' as const })),
        ),
      };
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) =>
      ((state.messages.at(-1) as AIMessage).tool_calls?.length ?? 0) > 0 ? 'tools' : END,
    )
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
}
