/**
 * A small LangGraph agent for tests, with no model: the agent node answers a user message with a
 * call of the `lookup` tool, then answers the tool's result in text. The tool node can stop for
 * an approval (`interrupt()`), resumed with `Command({ resume })`.
 */
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph, interrupt } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';

export interface TestGraphOptions {
  /** Stop in the tool node until resumed; the resume value is put in the tool's result. */
  approval?: boolean;
}

/** The compiled graph, checkpointed by `checkpointer`. */
export function testAgentGraph(checkpointer: BaseCheckpointSaver, opts: TestGraphOptions = {}) {
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', (state) => {
      const last = state.messages.at(-1)!;
      if (last.getType() === 'tool') {
        return { messages: [new AIMessage({ content: `answer: ${String(last.content)}` })] };
      }
      const turn = state.messages.filter((m) => m.getType() === 'human').length;
      return {
        messages: [
          new AIMessage({
            content: '',
            tool_calls: [{ id: `call-${turn}`, name: 'lookup', args: { q: String(last.content) } }],
            response_metadata: { model: 'none' },
          }),
        ],
      };
    })
    .addNode('tools', (state) => {
      const call = (state.messages.at(-1) as AIMessage).tool_calls![0]!;
      const approved = opts.approval ? String(interrupt(`run ${call.name}?`)) : 'auto';
      return {
        messages: [
          new ToolMessage({
            tool_call_id: call.id!,
            content: `found ${String(call.args.q)} (${approved})`,
          }),
        ],
      };
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) =>
      ((state.messages.at(-1) as AIMessage).tool_calls?.length ?? 0) > 0 ? 'tools' : END,
    )
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
}

/** The text of each message, for comparing conversations. */
export function texts(messages: readonly BaseMessage[]): string[] {
  return messages.map(
    (m) =>
      `${m.getType()}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`,
  );
}
