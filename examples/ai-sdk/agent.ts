/**
 * A small AI SDK agent with durable memory and chat history, offline on the
 * SDK's mock language models. Each turn opens the SQLite file afresh, as a new
 * process would, and calls the model with the assembled context: the working
 * memory, the summary of the earlier turns once they pass a small threshold,
 * then the newest turns. The second turn recalls what the first remembered.
 * Run from the repository root after `npm run build`: `npx tsx examples/ai-sdk/agent.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contextPrompt, createChatStore, memoryTools, summarizeWith } from '@agentstate/ai-sdk';
import { compactWhenOver } from '@agentstate/core';
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

// Your provider's models in an app; scripted mocks here, so this runs offline. One entry per model call.
const model = new MockLanguageModelV4({
  doGenerate: [
    callTool('c1', 'remember', { content: 'Ana drinks green tea, never coffee', key: 'drink' }),
    say('Noted: green tea, never coffee.'),
    callTool('c2', 'recall', { query: 'drink' }),
    say('A green tea.'),
  ],
});
const summarizer = new MockLanguageModelV4({ doGenerate: [say('Ana told the assistant she drinks green tea, never coffee.')] });

const dir = mkdtempSync(join(tmpdir(), 'agentstate-example-ai-sdk-'));
const path = join(dir, 'agent.db');
const scope = ['user', 'ana'];
// Once the turns after the summary pass 15 tokens, fold all but the newest 10 tokens into the summary.
const compaction = { thresholdTokens: 15, keepTokens: 10, summarize: summarizeWith(summarizer) };

/** One turn of the agent: its own provider on the file, the user's message saved, compaction, then the model on the context. */
async function turn(text: string): Promise<void> {
  const state = await openSqlite(path);
  try {
    const chats = createChatStore({ provider: state, scope });
    const history = await chats.loadChat('chat-1');
    const messages: UIMessage[] = [...history, { id: `u${history.length}`, role: 'user', parts: [{ type: 'text', text }] }];
    await chats.saveChat({ chatId: 'chat-1', messages });
    await compactWhenOver(state.sessions, 'chat-1', compaction);
    // The working memory, the summary if any, then the newest turns within 8,000 tokens.
    const prompt = await contextPrompt(state, 'chat-1', { maxTokens: 8000 });
    const result = await generateText({
      model,
      instructions: ['You are a helpful assistant. Remember what the user tells you about themselves.', prompt.instructions].filter(Boolean).join('\n\n'),
      messages: prompt.messages,
      tools: memoryTools({ provider: state, scope }),
      stopWhen: stepCountIs(5),
    });
    for (const call of result.steps.flatMap((step) => step.toolResults)) {
      const output = call.output as { content?: string; memories?: Array<{ content: string }> };
      console.log(`tool ${call.toolName}: ${JSON.stringify(output.memories?.map((m) => m.content) ?? output.content)}`);
    }
    await chats.saveChat({
      chatId: 'chat-1',
      messages: [...messages, { id: `a${history.length}`, role: 'assistant', parts: [{ type: 'text', text: result.text }] }],
    });
    console.log(`assistant: ${result.text}`);
  } finally {
    await state.close();
  }
}

try {
  const state = await openSqlite(path);
  await state.workingMemory.replace({ scope, text: 'Ana prefers short answers.' });
  await state.close();

  await turn('I drink green tea, never coffee.');
  await turn('What should you bring me?');

  // The transcript stays whole: the summary only stands in for its turns in the model's context.
  const reopened = await openSqlite(path);
  console.log(`chat-1 holds ${(await createChatStore({ provider: reopened, scope }).loadChat('chat-1')).length} messages`);
  await reopened.close();

  // What the model received on its last call: the instructions with the working memory and the summary, then the newest turns.
  for (const message of model.doGenerateCalls.at(-1)!.prompt) {
    const said =
      typeof message.content === 'string'
        ? [message.content]
        : message.content.map((part) => (part.type === 'text' ? part.text : `${part.type} ${'toolName' in part ? part.toolName : ''}`));
    console.log(`> ${message.role}: ${said.join(' | ')}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
