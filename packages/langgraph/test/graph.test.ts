import { createInMemoryProvider } from '@agentstate/core';
import { Annotation, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { AgentStateStore } from '../src/index.js';

const State = Annotation.Root({
  user: Annotation<string>(),
  message: Annotation<string>(),
  remembered: Annotation<string[]>(),
});

/** A node that remembers each message per user in the store and answers with what it knows. */
async function remember(state: typeof State.State, config: LangGraphRunnableConfig): Promise<Partial<typeof State.State>> {
  const store = config.store;
  if (!store) throw new TypeError('the graph was compiled without a store');
  const namespace = ['memories', state.user];
  const known = await store.search(namespace, { limit: 100 });
  await store.put(namespace, `m${known.length + 1}`, { text: state.message });
  const hits = await store.search(namespace, { query: 'tea', limit: 100 });
  return { remembered: hits.map((hit) => hit.value.text as string).sort() };
}

describe('a StateGraph compiled with the store', () => {
  it('hands its nodes the store through config.store, and what they write persists across runs', async () => {
    const provider = createInMemoryProvider();
    const store = new AgentStateStore(provider);
    const graph = new StateGraph(State).addNode('remember', remember).addEdge(START, 'remember').compile({ store });
    await graph.invoke({ user: 'u1', message: 'I like green tea' });
    await graph.invoke({ user: 'u2', message: 'tea is fine' });
    const out = await graph.invoke({ user: 'u1', message: 'and black tea too' });
    expect(out.remembered).toEqual(['I like green tea', 'and black tea too']);
    expect(await store.listNamespaces()).toEqual([
      ['memories', 'u1'],
      ['memories', 'u2'],
    ]);
    expect((await provider.memory.recall({ scope: ['memories', 'u1'], query: 'black' })).map((item) => item.key)).toEqual(['m2']);
  });
});
