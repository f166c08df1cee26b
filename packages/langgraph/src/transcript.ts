/**
 * A thread's messages as a session transcript (the saver's `mirrorMessages`):
 * each root checkpoint saved with a changed `messages` channel makes the
 * session whose id is the thread id hold those messages as turns, so a
 * LangGraph chat gets transcript search, recall and the inspector. The
 * transcript is derived from the checkpoints, never read back by the saver:
 * unchanged messages stay, and the turns after the first that differs are
 * replaced in one `replaceSuffix` (a fork to an earlier checkpoint cuts the
 * transcript back to it).
 */
import type { JsonValue, Part, Provider, ScopeInput, Turn, TurnInput } from '@agentstate/core';
import { ConflictError, NotFoundError, transcriptChange } from '@agentstate/core';
import type { BaseMessage } from '@langchain/core/messages';
import { isBaseMessage } from '@langchain/core/messages';

/** What `mirrorMessages` takes, beyond `true`. */
export interface MirrorMessagesOptions {
  /** The channel holding the messages (default `messages`, as `MessagesAnnotation` names it). */
  channel?: string;
  /** The scope of the sessions it creates (default: global). */
  scope?: ScopeInput;
}

/** The channel mirrored by default. */
export const MESSAGES_CHANNEL = 'messages';

/** Plain JSON of a value a message holds (tool arguments and outputs): what JSON keeps of it. */
function json(value: unknown): JsonValue {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
}

/** The turn of one LangChain message: its role, text and tool calls or result, its id and type in `metadata.langgraph`. */
export function messageToTurn(message: BaseMessage): TurnInput {
  const type = message.getType();
  const text = message.text;
  const parts: Part[] = [];
  let role: TurnInput['role'] = 'assistant';
  if (type === 'human') role = 'user';
  else if (type === 'system') role = 'system';
  if (type === 'tool') {
    role = 'tool';
    const { tool_call_id: callId, status } = message as BaseMessage & { tool_call_id?: string; status?: string };
    parts.push({ type: 'tool-result', callId: callId || 'unknown', toolName: message.name || 'tool', output: text, isError: status === 'error' });
  } else if (text !== '') parts.push({ type: 'text', text });
  const calls = (message as BaseMessage & { tool_calls?: { id?: string; name: string; args: unknown }[] }).tool_calls ?? [];
  for (const [i, call] of calls.entries()) parts.push({ type: 'tool-call', callId: call.id || `call-${i}`, toolName: call.name, input: json(call.args) });
  const metadata = { langgraph: { type, ...(message.id === undefined ? {} : { id: message.id }) } };
  return parts.length === 0 ? { role, content: '', metadata } : { role, parts, metadata };
}

/** The live turns of the thread's session, created when missing; `undefined` when it was deleted (its id stays taken). */
async function transcript(provider: Provider, threadId: string, scope: ScopeInput | undefined): Promise<Turn[] | undefined> {
  try {
    return [...(await provider.sessions.turns(threadId))];
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  try {
    await provider.sessions.create({ id: threadId, ...(scope === undefined ? {} : { scope }) });
    return [];
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    // Created by another saver meanwhile, or deleted by its owner: mirror into the first, leave the second alone.
    return provider.sessions.turns(threadId).then(
      (turns) => [...turns],
      (missing: unknown) => {
        if (missing instanceof NotFoundError) return undefined;
        throw missing;
      },
    );
  }
}

/** Makes the transcript of session `threadId` equal the messages of `value` (the channel's value). */
export async function mirrorMessages(provider: Provider, threadId: string, value: unknown, scope: ScopeInput | undefined): Promise<void> {
  const inputs = (Array.isArray(value) ? value : []).filter((m) => isBaseMessage(m)).map(messageToTurn);
  const stored = await transcript(provider, threadId, scope);
  if (stored === undefined) return;
  const change = transcriptChange(stored, inputs);
  if (change !== undefined) await provider.sessions.replaceSuffix(threadId, change);
}
