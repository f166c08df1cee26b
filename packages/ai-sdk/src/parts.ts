/**
 * The lossless mapping between the parts of an AI SDK `UIMessage` and the
 * parts of a turn (docs/contract.md §2). Every UI part lands on its natural
 * counterpart (text, reasoning, file, tool call and result, data), so
 * recall and search see what was said; the UI fields without a counterpart
 * ride in the part's `metadata.ui`. A part with no counterpart, or one its
 * counterpart cannot hold (a data URL over the `url` limit, a tool input
 * that is not JSON), is kept whole as a `data` part marked `uiPart`.
 * Reading back rebuilds exactly the UI part that was written.
 */
import type { JsonObject, JsonValue, Part } from '@agentstate/core';
import { partSchema, ValidationError } from '@agentstate/core';
import { dropUndefined } from './undefined.js';

/** A UI message part as the SDK shapes it, of any version: a `type` and its fields. */
export interface UIPartLike {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** The states of a tool part that carry a result. */
const RESULT_STATES = new Set(['output-available', 'output-error']);

/** The `metadata` of a part written whole; its `data` is the UI part. */
const WHOLE = { uiPart: true } as const;

/** `{ metadata: { ui } }` when there are UI fields left over, else nothing. */
function uiMetadata(rest: Record<string, unknown>): { metadata?: JsonObject } {
  return Object.keys(rest).length === 0 ? {} : { metadata: { ui: rest as JsonObject } };
}

/** The natural counterparts of `part` (one or two), before validation; `undefined` when it has none. */
function counterparts(part: UIPartLike): unknown[] | undefined {
  if (part.type === 'text' || part.type === 'reasoning') {
    const { type, text, ...rest } = part;
    return typeof text === 'string' ? [{ type, text, ...uiMetadata(rest) }] : undefined;
  }
  if (part.type === 'file') {
    const { type, mediaType, url, filename, ...rest } = part;
    if (typeof url !== 'string' || typeof mediaType !== 'string') return undefined;
    return [{ type, mediaType, url, ...(filename === undefined ? {} : { filename }), ...uiMetadata(rest) }];
  }
  if (part.type.startsWith('data-')) {
    const { type, data, ...rest } = part;
    return data === undefined ? undefined : [{ type: 'data', name: type.slice('data-'.length), data, ...uiMetadata(rest) }];
  }
  if (part.type.startsWith('tool-') || part.type === 'dynamic-tool') return toolCounterparts(part);
  return undefined;
}

/**
 * A tool part as a `tool-call` (its state and the fields without a
 * counterpart in `metadata.ui`), followed, once there is an outcome, by the
 * `tool-result` (the output, or the error text with `isError`).
 */
function toolCounterparts(part: UIPartLike): unknown[] | undefined {
  const { type, toolName, toolCallId, state, input, output, errorText, ...rest } = part;
  const dynamic = type === 'dynamic-tool';
  const name = dynamic ? toolName : type.slice('tool-'.length);
  if (typeof state !== 'string' || typeof toolCallId !== 'string') return undefined;
  if (state === 'output-available' && output === undefined) return undefined;
  if (state === 'output-error' && typeof errorText !== 'string') return undefined;
  // Fields the state does not explain are kept rather than dropped; those a state does not use may be unset.
  const extra = RESULT_STATES.has(state) ? {} : { output, errorText };
  const ui = { ...rest, ...extra, state, ...(dynamic ? { dynamic: true } : {}), ...(input === undefined ? { noInput: true } : {}) };
  const call = { type: 'tool-call', callId: toolCallId, toolName: name, input: input ?? null, metadata: { ui: dropUndefined(ui) } };
  if (!RESULT_STATES.has(state)) return [call];
  const isError = state === 'output-error';
  return [call, { type: 'tool-result', callId: toolCallId, toolName: name, output: isError ? errorText : output, isError }];
}

/**
 * The turn parts of a UI message's parts, in order. Throws `ValidationError`
 * (naming the part under `path`) when a part has no string `type`, or
 * cannot be stored even whole: not JSON, or over the limits.
 */
export function toTurnParts(parts: readonly UIPartLike[], path = 'parts'): Part[] {
  return parts.flatMap((given, index) => {
    const part = dropUndefined(given) as UIPartLike | null;
    // Every mapping branches on the type: without one there is nothing to map, nor to name.
    if (typeof part !== 'object' || part === null || typeof part.type !== 'string') {
      throw new ValidationError(`${path}.${index}.type`, 'a part must be an object with a string type');
    }
    const natural = counterparts(part)?.map((p) => partSchema.safeParse(p));
    if (natural?.every((r) => r.success)) return natural.map((r) => r.data as Part);
    const whole = partSchema.safeParse({ type: 'data', name: part.type, data: part, metadata: WHOLE });
    if (whole.success) return [whole.data];
    throw new ValidationError(`${path}.${index}`, `a ${part.type} part that cannot be stored: ${whole.error.issues[0]?.message ?? 'malformed'}`);
  });
}

/** The `ui` fields of a part's or a turn's `metadata`, or none. */
export function uiFields(metadata: JsonObject | undefined): Record<string, JsonValue> {
  const ui = metadata?.ui;
  return ui !== null && typeof ui === 'object' && !Array.isArray(ui) ? ui : {};
}

/** A tool call (and the result that follows it, if any) as one UI tool part. */
function toolPart(call: Extract<Part, { type: 'tool-call' }>, result: Extract<Part, { type: 'tool-result' }> | undefined): UIPartLike {
  const { state, dynamic, noInput, ...rest } = uiFields(call.metadata);
  const head = dynamic === true ? { type: 'dynamic-tool', toolName: call.toolName } : { type: `tool-${call.toolName}` };
  const input = noInput === true ? {} : { input: call.input };
  const outcome =
    result === undefined ? {} : result.isError ? { state: 'output-error', errorText: result.output } : { state: 'output-available', output: result.output };
  // A call written without our metadata (by another client) reads as its outcome says.
  const fallbackState = result === undefined ? { state: 'input-available' } : {};
  return { ...head, toolCallId: call.callId, ...fallbackState, ...outcome, ...(state === undefined ? {} : { state }), ...input, ...rest };
}

/** The UI part of a lone tool result (written by another client: no call before it). */
function orphanResult(result: Extract<Part, { type: 'tool-result' }>): UIPartLike {
  const outcome = result.isError ? { state: 'output-error', errorText: result.output } : { state: 'output-available', output: result.output };
  return { type: `tool-${result.toolName}`, toolCallId: result.callId, input: null, ...outcome };
}

/** The UI part of one turn part other than a tool call or result. */
function simplePart(part: Exclude<Part, { type: 'tool-call' | 'tool-result' }>): UIPartLike {
  const ui = uiFields(part.metadata);
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { type: part.type, text: part.text, ...ui };
    case 'file': {
      const url = part.url ?? `data:${part.mediaType};base64,${part.data}`;
      return { type: 'file', mediaType: part.mediaType, url, ...(part.filename === undefined ? {} : { filename: part.filename }), ...ui };
    }
    case 'data':
      if (part.metadata?.uiPart === true && part.data !== null && typeof part.data === 'object' && !Array.isArray(part.data)) {
        return part.data as UIPartLike;
      }
      return { type: `data-${part.name}`, data: part.data, ...ui };
  }
}

/** The UI parts of a turn's parts: the inverse of {@link toTurnParts}. */
export function fromTurnParts(parts: readonly Part[]): UIPartLike[] {
  const out: UIPartLike[] = [];
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i]!;
    if (part.type === 'tool-call') {
      const next = parts[i + 1];
      const result = next?.type === 'tool-result' && next.callId === part.callId ? next : undefined;
      out.push(toolPart(part, result));
      if (result) i += 1;
    } else if (part.type === 'tool-result') {
      out.push(orphanResult(part));
    } else {
      out.push(simplePart(part));
    }
  }
  return out;
}
