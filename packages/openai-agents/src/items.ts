/**
 * Agents SDK items as agentstate turns, and back. A turn carries the item's
 * searchable shape as parts (message text as text parts, reasoning as
 * reasoning parts, function calls and their results as tool-call and
 * tool-result parts) and every other field, encoded losslessly, in one data
 * part, so the turn decodes to an item that deep-equals the one written.
 */
import type { Part, Turn, TurnInput, TurnRole } from '@agentstate/core';
import { LIMITS, ValidationError } from '@agentstate/core';
import type { AgentInputItem } from '@openai/agents-core';
import { protocol } from '@openai/agents-core';
import type { Encoded } from './codec.js';
import { decodeValue, encodeValue, isStorableText } from './codec.js';

/** The name of the data part that holds an item's fields not kept in other parts. */
export const ITEM_PART = 'openai-agents.item';

type Fields = Record<string, unknown>;

/** Content entries whose `text` becomes a part of `partType`. */
const TEXT_ENTRIES = { message: ['input_text', 'output_text'], reasoning: ['input_text', 'reasoning_text'] } as const;

const isFields = (value: unknown): value is Fields => value !== null && typeof value === 'object' && !Array.isArray(value);
const isShortName = (value: unknown): value is string => typeof value === 'string' && value !== '' && value.length <= LIMITS.shortText && isStorableText(value);
const isCallId = (value: unknown): value is string => typeof value === 'string' && value !== '' && value.length <= LIMITS.id && isStorableText(value);

/** The part of a zod schema {@link checkItem} uses: parsing, and the definition of an object's fields. */
interface ItemSchema {
  safeParse(value: unknown): { success: boolean; error?: { issues: { message: string }[] } };
}
interface FieldDef {
  _zod: { def: { type: string; values?: unknown[]; innerType?: FieldDef } };
}

/**
 * The members of the SDK's `ModelItem` union keyed by what tells them apart:
 * `type` for every item but messages, `role` for messages (whose `type` is
 * optional). Parsing one member instead of the union is the same check at a
 * tenth of the cost: the union tries its members in turn and builds the
 * issues of every member that fails.
 */
const ITEM_SCHEMAS = (() => {
  const byType = new Map<string, ItemSchema>();
  const byRole = new Map<string, ItemSchema>();
  const literals = (field: FieldDef | undefined): unknown[] => (field?._zod.def.type === 'literal' ? (field._zod.def.values ?? []) : []);
  for (const member of (protocol.ModelItem as unknown as { options: (ItemSchema & { shape: Record<string, FieldDef> })[] }).options) {
    const type = member.shape.type;
    if (type?._zod.def.type === 'optional') {
      for (const role of literals(member.shape.role)) byRole.set(String(role), member);
    } else {
      for (const value of literals(type)) byType.set(String(value), member);
    }
  }
  return { byType, byRole };
})();

/** The one member of `ModelItem` that can accept `item`; the whole union when none is known (its message names the problem). */
function itemSchema(item: unknown): ItemSchema {
  if (!isFields(item)) return protocol.ModelItem;
  const { type, role } = item;
  const member = type === undefined || type === 'message' ? ITEM_SCHEMAS.byRole.get(role as string) : ITEM_SCHEMAS.byType.get(type as string);
  return member ?? protocol.ModelItem;
}

/**
 * Checks that `item` is an item of the SDK's protocol (its `ModelItem`
 * schema) and returns it; `ValidationError` naming `path` otherwise, before
 * anything is written.
 */
export function checkItem(item: unknown, path: string): AgentInputItem {
  const parsed = itemSchema(item).safeParse(item);
  if (!parsed.success) throw new ValidationError(path, `not an Agents SDK item: ${parsed.error?.issues[0]?.message ?? 'invalid'}`);
  return item as AgentInputItem;
}

/** {@link checkItem} of each of `items`, the one at `i` named `path.i`. */
export function checkItems(items: readonly unknown[], path: string): AgentInputItem[] {
  return items.map((item, i) => checkItem(item, `${path}.${i}`));
}

/** Who speaks an item, as a turn role. */
function roleOf(item: Fields): TurnRole {
  const type = item.type ?? 'message';
  if (type === 'message') return item.role === 'user' ? 'user' : item.role === 'assistant' ? 'assistant' : 'system';
  return typeof type === 'string' && /(_output|_result)$/.test(type) ? 'tool' : 'assistant';
}

/** Moves the storable `text` of text entries of `content` into parts of `partType`; returns what stays. */
function splitContent(content: unknown[], kinds: readonly string[], partType: 'text' | 'reasoning', parts: Part[]): unknown[] {
  return content.map((entry) => {
    if (!isFields(entry) || !kinds.includes(entry.type as string) || typeof entry.text !== 'string' || !isStorableText(entry.text)) return entry;
    const { text, ...rest } = entry;
    parts.push({ type: partType, text });
    return rest;
  });
}

/** The turn that stores `item` (already checked with {@link checkItem}). */
export function itemToTurn(item: AgentInputItem): TurnInput {
  const rest: Fields = { ...(item as Fields) };
  const parts: Part[] = [];
  const type = rest.type ?? 'message';
  if (type === 'message' || type === 'reasoning') {
    const partType = type === 'message' ? 'text' : 'reasoning';
    if (typeof rest.content === 'string' && isStorableText(rest.content)) {
      parts.push({ type: partType, text: rest.content });
      delete rest.content;
    } else if (Array.isArray(rest.content)) {
      rest.content = splitContent(rest.content, TEXT_ENTRIES[type], partType, parts);
    }
  } else if (type === 'function_call' && isCallId(rest.callId) && isShortName(rest.name) && typeof rest.arguments === 'string') {
    parts.push({ type: 'tool-call', callId: rest.callId, toolName: rest.name, input: encodeValue(rest.arguments) });
    for (const key of ['callId', 'name', 'arguments']) delete rest[key];
  } else if (type === 'function_call_result' && isCallId(rest.callId) && isShortName(rest.name) && Object.hasOwn(rest, 'output')) {
    parts.push({ type: 'tool-result', callId: rest.callId, toolName: rest.name, output: encodeValue(rest.output), isError: false });
    for (const key of ['callId', 'name', 'output']) delete rest[key];
  }
  parts.push({ type: 'data', name: ITEM_PART, data: encodeValue(rest) });
  return { role: roleOf(item as Fields), parts };
}

/** Puts back into `content` the text the parts of `partType` hold, in order. */
function joinContent(content: unknown[], kinds: readonly string[], texts: string[]): unknown[] {
  return content.map((entry) =>
    isFields(entry) && kinds.includes(entry.type as string) && !Object.hasOwn(entry, 'text') ? { ...entry, text: texts.shift() } : entry,
  );
}

/**
 * The item a turn stores. A turn written by other means (no item part)
 * reads as a plain message of its role with its text content.
 */
export function turnToItem(turn: Turn): AgentInputItem {
  const data = turn.parts.find((p) => p.type === 'data' && p.name === ITEM_PART);
  if (data?.type !== 'data') {
    if (turn.role === 'user' || turn.role === 'system') return { role: turn.role, content: turn.content } as AgentInputItem;
    return { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.content }] } as AgentInputItem;
  }
  const item = decodeValue(data.data as Encoded) as Fields;
  const type = item.type ?? 'message';
  if (type === 'message' || type === 'reasoning') {
    const texts = turn.parts.flatMap((p) => (p.type === (type === 'message' ? 'text' : 'reasoning') && 'text' in p ? [p.text] : []));
    if (!Object.hasOwn(item, 'content')) item.content = texts[0];
    else if (Array.isArray(item.content)) item.content = joinContent(item.content, TEXT_ENTRIES[type], texts);
  }
  const call = turn.parts.find((p) => p.type === 'tool-call');
  if (type === 'function_call' && call?.type === 'tool-call' && !Object.hasOwn(item, 'callId')) {
    Object.assign(item, { callId: call.callId, name: call.toolName, arguments: decodeValue(call.input as Encoded) });
  }
  const result = turn.parts.find((p) => p.type === 'tool-result');
  if (type === 'function_call_result' && result?.type === 'tool-result' && !Object.hasOwn(item, 'callId')) {
    Object.assign(item, { callId: result.callId, name: result.toolName, output: decodeValue(result.output as Encoded) });
  }
  return item as AgentInputItem;
}
