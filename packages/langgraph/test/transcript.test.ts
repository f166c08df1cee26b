/** `mirrorMessages`: a thread's messages channel kept as a session transcript, for search, recall and the inspector. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInMemoryProvider, ValidationError } from '@agentstate/core';
import { openSqlite } from '@agentstate/sqlite';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { END, type LangGraphRunnableConfig, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { type AgentStateSaver, openSaver } from '../src/index.js';

/** A chat graph: a tool call and its result on a question mark, then an echo of the last human message. */
function chat(checkpointer: AgentStateSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode('bot', (state) => {
      const last = state.messages.at(-1)!;
      if (last.getType() === 'human' && last.text.endsWith('?'))
        return { messages: [new AIMessage({ content: '', tool_calls: [{ id: 'call-1', name: 'lookup', args: { q: last.text } }] })] };
      if (last.getType() === 'ai') return { messages: [new ToolMessage({ content: '42', tool_call_id: 'call-1', name: 'lookup' })] };
      return { messages: [new AIMessage(`echo: ${last.text}`)] };
    })
    .addEdge(START, 'bot')
    .addConditionalEdges('bot', (state) => (state.messages.at(-1)!.getType() === 'ai' && state.messages.at(-1)!.text.startsWith('echo') ? END : 'bot'))
    .compile({ checkpointer });
}

const thread = (id: string, checkpointId?: string) => ({ configurable: { thread_id: id, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) } });
const roleAndText = (turns: readonly { role: string; content: string }[]) => turns.map((t) => `${t.role}: ${t.content}`);

describe('mirrorMessages', () => {
  it("keeps each thread's messages as the turns of a session named after the thread, searchable", async () => {
    const provider = createInMemoryProvider();
    const graph = chat(openSaver(provider, { mirrorMessages: { scope: ['user', 'ada'] } }));
    await graph.invoke({ messages: [new HumanMessage('I drink green tea')] }, thread('t1'));
    await graph.invoke({ messages: [new HumanMessage('What is the answer?')] }, thread('t1'));
    const session = await provider.sessions.get('t1');
    expect(session.scope).toEqual(['user', 'ada']);
    const turns = await provider.sessions.turns('t1');
    expect(roleAndText(turns).slice(0, 2)).toEqual(['user: I drink green tea', 'assistant: echo: I drink green tea']);
    expect(turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(turns[3]!.parts).toEqual([{ type: 'tool-call', callId: 'call-1', toolName: 'lookup', input: { q: 'What is the answer?' } }]);
    expect(turns[4]!.parts).toEqual([{ type: 'tool-result', callId: 'call-1', toolName: 'lookup', output: '42', isError: false }]);
    // Each save wrote only what was new: no turn was replaced.
    expect(turns.map((t) => t.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    const hits = await provider.sessions.search({ query: 'green tea', scope: ['user', 'ada'] });
    expect(hits.map((h) => [h.session.id, h.turn.content])).toEqual([
      ['t1', 'echo: I drink green tea'],
      ['t1', 'I drink green tea'],
    ]);
  });

  it('follows a fork back to an earlier checkpoint, and leaves threads alone when it is off', async () => {
    const provider = createInMemoryProvider();
    const saver = openSaver(provider, { mirrorMessages: true });
    const graph = chat(saver);
    await graph.invoke({ messages: [new HumanMessage('first')] }, thread('t2'));
    const [afterFirst] = await graph
      .getStateHistory(thread('t2'), { limit: 1 })
      .next()
      .then((r) => [r.value!.config.configurable!.checkpoint_id as string]);
    await graph.invoke({ messages: [new HumanMessage('second')] }, thread('t2'));
    expect(roleAndText(await provider.sessions.turns('t2'))).toHaveLength(4);
    await graph.invoke({ messages: [new HumanMessage('instead')] }, thread('t2', afterFirst));
    expect(roleAndText(await provider.sessions.turns('t2'))).toEqual(['user: first', 'assistant: echo: first', 'user: instead', 'assistant: echo: instead']);

    const quiet = createInMemoryProvider();
    await chat(openSaver(quiet)).invoke({ messages: [new HumanMessage('hello')] }, thread('t3'));
    expect(await quiet.sessions.list()).toEqual([]);
  });

  it("gives a node its thread's context from the first step, with LangGraph's default durability", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-langgraph-'));
    const provider = await openSqlite(join(dir, 'chat.db'));
    try {
      const scope = ['user', 'ada'];
      await provider.workingMemory.replace({ scope, text: 'Ada cycles to work.' });
      const saver = openSaver(provider, { mirrorMessages: { scope } });
      const model = new FakeListChatModel({ responses: ['Take the bike.', 'Yes, the bike.'] });
      const received: string[][] = [];
      const callbacks = [
        { handleChatModelStart: (_llm: unknown, [sent]: BaseMessage[][]) => void received.push(sent!.map((m) => `${m.getType()}: ${m.text}`)) },
      ];
      const agent = async (state: typeof MessagesAnnotation.State, config: LangGraphRunnableConfig) => {
        const { entries } = await saver.context(config, state.messages, { maxTokens: 1000 });
        const notes = entries.flatMap((e) => (e.kind === 'working' ? [new SystemMessage(e.memory.content)] : []));
        const ids = new Set(entries.flatMap((e) => (e.kind === 'turn' ? [(e.turn.metadata.langgraph as { id?: string }).id] : [])));
        return { messages: [await model.invoke([...notes, ...state.messages.filter((m) => ids.has(m.id))], { callbacks })] };
      };
      const graph = new StateGraph(MessagesAnnotation).addNode('agent', agent).addEdge(START, 'agent').compile({ checkpointer: saver });
      await graph.invoke({ messages: [new HumanMessage('How do I get to work?')] }, thread('t4'));
      await graph.invoke({ messages: [new HumanMessage('Even in the rain?')] }, thread('t4'));
      expect(received).toEqual([
        ['system: Ada cycles to work.', 'human: How do I get to work?'],
        ['system: Ada cycles to work.', 'human: How do I get to work?', 'ai: Take the bike.', 'human: Even in the rain?'],
      ]);
      // The saver's own puts leave the same transcript, each turn written once.
      const turns = await provider.sessions.turns('t4');
      expect(roleAndText(turns)).toEqual(['user: How do I get to work?', 'assistant: Take the bike.', 'user: Even in the rain?', 'assistant: Yes, the bike.']);
      expect(turns.map((t) => t.seq)).toEqual([1, 2, 3, 4]);
      await expect(openSaver(provider).context(thread('t4'), [], { maxTokens: 1000 })).rejects.toBeInstanceOf(ValidationError);
    } finally {
      await provider.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
