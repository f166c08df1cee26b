/**
 * One `UIMessage` is one turn: its role, its parts (see parts.ts) and, in
 * the turn's `metadata.ui`, the message id and the message's own
 * `metadata`. The turn's id stays ours, so a message id may repeat across
 * chats and a regenerated message may reuse its id.
 */
import type { JsonObject, JsonValue, Part, Turn, TurnInput } from '@agentstate/core';
import { ValidationError } from '@agentstate/core';
import type { UIMessage } from 'ai';
import { dropUndefined } from './undefined.js';
import { fromTurnParts, toTurnParts, type UIPartLike, uiFields } from './parts.js';

/** The roles a UI message may have. */
const UI_ROLES = new Set<string>(['system', 'user', 'assistant']);

/** The turn input of a UI message. */
export function toTurnInput(message: UIMessage, index: number): TurnInput {
  // The SDK leaves a response message's id empty unless the route passes `generateMessageId`: kept as given.
  if (typeof message.id !== 'string') throw new ValidationError(`messages.${index}.id`, 'must be a string');
  if (!UI_ROLES.has(message.role)) throw new ValidationError(`messages.${index}.role`, 'must be system, user or assistant');
  if (!Array.isArray(message.parts)) throw new ValidationError(`messages.${index}.parts`, 'must be an array');
  const ui: JsonObject = { id: message.id };
  if (message.metadata !== undefined) ui.metadata = dropUndefined(message.metadata) as JsonValue;
  return { role: message.role, parts: toTurnParts(message.parts as readonly UIPartLike[], `messages.${index}.parts`), metadata: { ui } };
}

/**
 * The UI message of a turn. A turn written by another client (no
 * `metadata.ui`) reads with its turn id as message id; a `tool` turn reads
 * as an assistant message, the role that carries tool parts in the SDK.
 */
export function fromTurn<M extends UIMessage = UIMessage>(turn: Turn): M {
  const fields = uiFields(turn.metadata);
  const role: UIMessage['role'] = turn.role === 'tool' ? 'assistant' : turn.role;
  const id = typeof fields.id === 'string' ? fields.id : turn.id;
  return { id, role, ...('metadata' in fields ? { metadata: fields.metadata } : {}), parts: fromTurnParts(turn.parts) } as unknown as M;
}

/**
 * The UI messages of a transcript's turns, oldest first: {@link fromTurn}
 * of each, but that a tool result written in a later turn than its call (a
 * `tool` turn, as LangGraph and the OpenAI Agents SDK write it) joins its
 * call's part, as the SDK's messages hold it; a turn the join leaves with
 * no parts reads as no message.
 */
export function fromTurns<M extends UIMessage = UIMessage>(turns: readonly Turn[]): M[] {
  // callId → the parts holding the call, while no result has joined it.
  const open = new Map<string, Part[]>();
  const joined: Turn[] = [];
  for (const turn of turns) {
    const parts: Part[] = [];
    for (const part of turn.parts) {
      const holder = part.type === 'tool-result' ? open.get(part.callId) : undefined;
      if (part.type === 'tool-result' && holder) {
        // Right after its call: where fromTurnParts reads a call's result.
        holder.splice(holder.findLastIndex((p) => p.type === 'tool-call' && p.callId === part.callId) + 1, 0, part);
        open.delete(part.callId);
        continue;
      }
      parts.push(part);
      if (part.type === 'tool-call') open.set(part.callId, parts);
    }
    if (parts.length > 0 || turn.parts.length === 0) joined.push({ ...turn, parts });
  }
  return joined.map((turn) => fromTurn<M>(turn));
}
