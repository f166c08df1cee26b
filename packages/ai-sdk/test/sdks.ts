/**
 * The AI SDK majors the adapter is tested against, each with its own mock
 * language model: ai 7 (the devDependency `ai`) and ai 6 (the npm alias
 * `ai-v6`). Tests run once per entry with `describe.each(SDKS)`.
 */
import * as ai7 from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import * as ai6 from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';

/** One tested SDK major, typed as the current one: the surface used here is the same in both. */
export interface Sdk {
  name: string;
  ai: typeof ai7;
  MockLanguageModel: typeof MockLanguageModelV4;
  /** Whether the major knows the parts ai 7 added (custom, reasoning-file, steering-message). */
  v7Parts: boolean;
}

export const SDKS: Sdk[] = [
  { name: 'ai 7.0.173', ai: ai7, MockLanguageModel: MockLanguageModelV4, v7Parts: true },
  {
    name: 'ai 6.0.325',
    ai: ai6 as unknown as typeof ai7,
    MockLanguageModel: MockLanguageModelV3 as unknown as typeof MockLanguageModelV4,
    v7Parts: false,
  },
];

/** Token usage a mock model reports. */
export const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A scripted `doGenerate` answer calling `toolName` with `input`. */
export function toolCallStep(toolCallId: string, toolName: string, input: unknown) {
  return {
    content: [{ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls' as const, raw: undefined },
    usage: USAGE,
    warnings: [],
  };
}

/** A scripted `doGenerate` answer saying `text`. */
export function textStep(text: string) {
  return { content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: undefined }, usage: USAGE, warnings: [] };
}

/** One chunk a mock model streams. */
type StreamPart = Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

/** A scripted `doStream` answer: the chunks of one step, ending with its finish. */
export function streamStep(chunks: StreamPart[], finish: 'stop' | 'tool-calls' = 'stop') {
  return {
    stream: convertArrayToReadableStream<StreamPart>([...chunks, { type: 'finish', finishReason: { unified: finish, raw: undefined }, usage: USAGE }]),
  };
}

/** The chunks of a streamed text. */
export function textChunks(id: string, ...deltas: string[]): StreamPart[] {
  return [{ type: 'text-start', id }, ...deltas.map((delta): StreamPart => ({ type: 'text-delta', id, delta })), { type: 'text-end', id }];
}
