/**
 * A small AI SDK agent with durable memory and chat history, offline on the
 * SDK's mock language model. Each turn opens the SQLite file afresh, as a new
 * process would: the second turn recalls what the first remembered.
 * Run from the repository root after `npm run build`: `npx tsx examples/ai-sdk/agent.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChatStore, memoryTools } from '@agentstate/ai-sdk';
import { openSqlite } from '@agentstate/sqlite';
import { generateText, stepCountIs, type UIMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const callTool = (toolCallId: string, toolName: string, input: unknown) => ({
  content: [{ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: undefined },
  usage,
  warnings: [],
});
const say = (text: string) => ({ content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: undefined }, usage, warnings: [] });

const dir = mkdtempSync(join(tmpdir(), 'agentstate-example-ai-sdk-'));
const path = join(dir, 'agent.db');
const scope = ['user', 'ana'];

/** One turn of the agent: its own provider on the file, the chat so far, the scripted model's steps. */
async function turn(text: string, steps: Array<ReturnType<typeof callTool> | ReturnType<typeof say>>): Promise<void> {
  const state = await openSqlite(path);
  try {
    const chats = createChatStore({ provider: state, scope });
    const history = await chats.loadChat('chat-1');
    const result = await generateText({
      // Your provider's model in an app; a scripted mock here, so this runs offline.
      model: new MockLanguageModelV4({ doGenerate: steps }),
      system: 'You are a helpful assistant. Remember what the user tells you about themselves.',
      prompt: text,
      tools: memoryTools({ provider: state, scope }),
      stopWhen: stepCountIs(5),
    });
    for (const step of result.steps) {
      for (const call of step.toolResults) {
        const output = call.output as { content?: string; memories?: Array<{ content: string }> };
        console.log(`tool ${call.toolName}: ${JSON.stringify(output.memories?.map((m) => m.content) ?? output.content)}`);
      }
    }
    const user: UIMessage = { id: `u${history.length}`, role: 'user', parts: [{ type: 'text', text }] };
    const answer: UIMessage = { id: `a${history.length}`, role: 'assistant', parts: [{ type: 'text', text: result.text }] };
    await chats.saveChat({ chatId: 'chat-1', messages: [...history, user, answer] });
    console.log(`assistant: ${result.text}`);
  } finally {
    await state.close();
  }
}

try {
  await turn('I drink green tea, never coffee.', [callTool('c1', 'remember', { content: 'Ana drinks green tea, never coffee', key: 'drink' }), say('Noted.')]);
  await turn('What should you bring me?', [callTool('c2', 'recall', { query: 'drink' }), say('A green tea.')]);

  const state = await openSqlite(path);
  const chat = await createChatStore({ provider: state, scope }).loadChat('chat-1');
  console.log(`chat-1 holds ${chat.length} messages`);
  console.log((await state.memory.recall({ query: 'tea', scope })).map((hit) => hit.content));
  await state.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
