import { createInMemoryProvider } from '@agentstate/core';
import { AgentStateSession } from '@agentstate/openai-agents';
import { MemorySession } from '@openai/agents-core';
const WORDS = ('deploy staging production rollback database migration cache redis postgres user prefers dark mode lisbon office friday ' +
  'review tests coverage latency budget alert pager incident kubernetes cluster node memory leak profile flame graph').split(' ');
let rng = 42;
const random = () => { rng = (Math.imul(rng, 1103515245) + 12345) >>> 0; return rng / 2 ** 32; };
const sentence = (n = 12) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
function turnItems(i) {
  const callId = `call_${i}`;
  return [
    { role: 'user', content: sentence(20) },
    { type: 'function_call', callId, name: 'search_logs', arguments: JSON.stringify({ query: sentence(4) }), status: 'completed' },
    { type: 'function_call_result', callId, name: 'search_logs', status: 'completed', output: { type: 'text', text: sentence(30) } },
    { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: sentence(30) }] },
  ];
}
const TURNS = Number(process.env.TURNS ?? 500);
const turns = Array.from({ length: TURNS }, (_, i) => turnItems(i));
const which = process.argv[2] ?? 'both';
for (let round = 0; round < 3; round++) {
  for (const [name, make] of [['memory', () => new MemorySession()], ['agentstate', () => new AgentStateSession(createInMemoryProvider(), { sessionId: 'bench' })]]) {
    if (which !== 'both' && which !== name) continue;
    const s = make();
    await s.getSessionId();
    const c0 = process.cpuUsage(); const t0 = performance.now();
    for (const t of turns) await s.addItems(t);
    const ms = performance.now() - t0; const cpu = process.cpuUsage(c0);
    console.log(name, 'items/s wall', Math.round(TURNS * 4 / ms * 1000), 'cpu', Math.round(TURNS * 4 / ((cpu.user + cpu.system) / 1000) * 1000));
  }
}
