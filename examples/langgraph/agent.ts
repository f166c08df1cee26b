/**
 * A LangGraph agent whose checkpoints and long-term memory live in one
 * agentstate SQLite file. Offline: the chat model is LangChain's scripted
 * fake. The run pauses before the tool (a human approval step), the process
 * lets go of the file, and a fresh graph over the same file finishes the
 * thread, as a restarted process would. The saver mirrors the thread's
 * messages into a session, and the model is called with that session's
 * context window: the working memory first, then the newest turns that fit.
 *
 *   npx tsx examples/langgraph/agent.ts [path/to/agent.db]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SUMMARY_HEADING } from '@agentstate/core';
import { openSaver, openStore } from '@agentstate/langgraph';
import { openSqlite } from '@agentstate/sqlite';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type AIMessage, AIMessageChunk, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeListChatModel, FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { END, type LangGraphRunnableConfig, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';

const temporary = process.argv[2] ? undefined : mkdtempSync(join(tmpdir(), 'agentstate-example-'));
const path = process.argv[2] ?? join(temporary!, 'agent.db');
const thread = { configurable: { thread_id: 'trip-1' } };
const scope = ['user', 'ada'];
/** What the model received on its last call, as its own callback reports it. */
let received: BaseMessage[] = [];
const callbacks = [
  {
    handleChatModelStart: (_llm: unknown, [sent]: BaseMessage[][]) => {
      received = sent!;
    },
  },
];

const weather = tool(async ({ city }: { city: string }) => `${city}: 21 °C and sunny`, {
  name: 'weather',
  description: 'The weather in a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
});

/** The graph over one file: checkpoints (the saver) and memory (the store) share its provider. */
async function open(model: BaseChatModel) {
  const provider = await openSqlite(path);
  const saver = openSaver(provider, { mirrorMessages: { scope } });
  // The thread's context window, from the session the saver mirrors its messages into (brought up to the node's
  // messages first): the entries that are not turns (working memory, a summary once compacted) as system messages,
  // then the messages of the newest turns.
  const agent = async (state: typeof MessagesAnnotation.State, config: LangGraphRunnableConfig) => {
    const { entries } = await saver.context(config, state.messages, { maxTokens: 8000 });
    const notes = entries.flatMap((e) =>
      e.kind === 'working' ? [`Working memory:\n${e.memory.content}`] : e.kind === 'summary' ? [`${SUMMARY_HEADING}\n${e.summary.text}`] : [],
    );
    const ids = new Set(entries.flatMap((e) => (e.kind === 'turn' ? [(e.turn.metadata.langgraph as { id?: string }).id] : [])));
    const messages = [...notes.map((note) => new SystemMessage(note)), ...state.messages.filter((m) => ids.has(m.id))];
    return { messages: [await model.invoke(messages, { callbacks })] };
  };
  const remember = async (state: typeof MessagesAnnotation.State, config: LangGraphRunnableConfig) => {
    await config.store!.put(['memories', 'ada'], 'last-forecast', { text: String(state.messages.at(-1)!.content) });
    return {};
  };
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', agent)
    .addNode('tools', new ToolNode([weather]))
    .addNode('remember', remember)
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : 'remember'), ['tools', 'remember'])
    .addEdge('tools', 'agent')
    .addEdge('remember', END)
    .compile({ checkpointer: saver, store: openStore(provider), interruptBefore: ['tools'] });
  return { graph, provider };
}

// First process: the model asks for the tool; the graph pauses for approval.
const callsTool = new FakeStreamingChatModel({
  chunks: [new AIMessageChunk({ content: '', tool_calls: [{ id: 'call-1', name: 'weather', args: { city: 'Lisbon' } }] })],
});
const first = await open(callsTool);
await first.provider.workingMemory.replace({ scope, text: 'Ada cycles everywhere and hates carrying things.' });
await first.graph.invoke({ messages: [new HumanMessage('Shall I pack an umbrella for Lisbon?')] }, thread);
console.log('paused before:', (await first.graph.getState(thread)).next);
await first.provider.close();

// Second process (or the same app after a restart): resume the thread from the file.
const second = await open(new FakeListChatModel({ responses: ['No umbrella: Lisbon is sunny, 21 °C.'] }));
const done = await second.graph.invoke(null, thread);
console.log('answer:', done.messages.at(-1)!.content);
console.log('remembered:', (await second.provider.memory.getByKey('last-forecast', { scope: ['memories', 'ada'] }))?.metadata);
console.log('checkpoints:', (await second.provider.checkpoints.list({ threadId: 'trip-1' })).length);
// What the model received on its last call: the working memory, then the thread's turns, tool call and result.
for (const m of received)
  console.log(`> ${m.getType()}: ${(m as AIMessage).tool_calls?.map((c) => `${c.name}(${JSON.stringify(c.args)})`).join(', ') || m.text}`);
await second.provider.close();
if (temporary) rmSync(temporary, { recursive: true, force: true });
