/**
 * What an adapter that mirrors a list of messages into a session writes
 * (the AI SDK's chats, LangGraph's `mirrorMessages`): the stored turns that
 * already match the messages stay, and the rest is one `replaceSuffix`.
 */
import { canonicalJson } from '../log/json.js';
import type { TurnInput } from '../records/inputs.js';
import type { Turn } from '../records/records.js';

/** The fields of a turn a message decides, comparable between a stored turn and a turn input. */
function comparable(turn: Pick<Turn, 'role' | 'parts' | 'metadata'> | TurnInput): string {
  return canonicalJson({ role: turn.role, parts: turn.parts ?? [], metadata: turn.metadata ?? {} });
}

/**
 * The `replaceSuffix` that makes the transcript `stored` equal `inputs`:
 * the longest prefix whose turns match (role, parts, metadata) is kept,
 * `expected` names the stored turns after it and `turns` replaces them;
 * `undefined` when the two are equal already.
 */
export function transcriptChange(stored: readonly Turn[], inputs: readonly TurnInput[]): { expected: string[]; turns: TurnInput[] } | undefined {
  let kept = 0;
  while (kept < stored.length && kept < inputs.length && comparable(stored[kept]!) === comparable(inputs[kept]!)) kept += 1;
  const expected = stored.slice(kept).map((t) => t.id);
  const turns = inputs.slice(kept);
  return expected.length === 0 && turns.length === 0 ? undefined : { expected, turns };
}
