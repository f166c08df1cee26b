/**
 * Chat persistence for the AI SDK: a chat is a session (its id is the chat
 * id, its scope the caller's), each `UIMessage` one turn. Saving writes
 * only what changed, in one atomic `replaceSuffix`, under an operation id
 * derived from the change, so a retried request writes nothing twice.
 */
import { createHash } from 'node:crypto';
import type { Provider, ScopeInput, Turn, TurnInput } from '@agentstate/core';
import { ConflictError, NotFoundError, sameScope, toScope } from '@agentstate/core';
import { canonicalJson } from '@agentstate/core/backend';
import type { UIMessage } from 'ai';
import { fromTurn, toTurnInput } from './messages.js';

/** Options of {@link createChatStore}. */
export interface ChatStoreOptions {
  /** Where the chats live. */
  provider: Provider;
  /** The scope every chat of this store is created in and read from, e.g. `['user', userId]`. Default: global. */
  scope?: ScopeInput;
  /** Title of a chat's session when it is created. Default: none. */
  title?: string;
}

/** What {@link ChatStore.saveChat} takes. */
export interface SaveChatInput<M extends UIMessage = UIMessage> {
  chatId: string;
  /** The whole chat, as the SDK hands it over (`onFinish`'s `messages`). */
  messages: readonly M[];
}

/** The minimal part of the SDK's `onFinish` event the helper needs. */
export interface FinishEvent<M extends UIMessage = UIMessage> {
  messages: M[];
}

/** UIMessage chats stored as sessions. */
export interface ChatStore {
  /**
   * Makes the stored chat equal `messages`: creates the session on first
   * save, appends new messages, and replaces a changed suffix (an assistant
   * message continued or regenerated) in one atomic write. Unchanged
   * messages are not rewritten; saving the same messages again writes nothing.
   */
  saveChat<M extends UIMessage>(input: SaveChatInput<M>): Promise<void>;
  /**
   * The chat's messages, oldest first, as saved (they pass the SDK's
   * `validateUIMessages`). A chat that does not exist, or lives in another
   * scope, loads as `[]`.
   */
  loadChat<M extends UIMessage = UIMessage>(chatId: string): Promise<M[]>;
  /**
   * An `onFinish` for `toUIMessageStreamResponse({ originalMessages, onFinish })`
   * that saves the finished chat.
   */
  onFinish<M extends UIMessage>(chatId: string): (event: FinishEvent<M>) => Promise<void>;
}

/** Attempts of a save that loses a race with another save of the same chat. */
const SAVE_ATTEMPTS = 3;

/** A short, stable operation id for `parts`. */
function operationId(kind: string, parts: unknown): string {
  return `ai-sdk-${kind}-${createHash('sha256').update(canonicalJson(parts)).digest('hex').slice(0, 48)}`;
}

/** The fields of a turn a message decides, comparable with {@link toTurnInput}'s output. */
function comparable(turn: Pick<Turn, 'role' | 'parts' | 'metadata'> | TurnInput): string {
  return canonicalJson({ role: turn.role, parts: turn.parts ?? [], metadata: turn.metadata ?? {} });
}

/** Builds a {@link ChatStore} over `provider`. */
export function createChatStore(options: ChatStoreOptions): ChatStore {
  const { provider } = options;
  const scope = toScope(options.scope);

  /** The live turns of the chat's session, or `undefined` when it has none here. */
  const liveTurns = async (chatId: string): Promise<Turn[] | undefined> => {
    try {
      const session = await provider.sessions.get(chatId);
      if (!sameScope(session.scope, scope)) return undefined;
      return [...(await provider.sessions.turns(chatId))];
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  };

  const ensureSession = async (chatId: string): Promise<Turn[]> => {
    const turns = await liveTurns(chatId);
    if (turns) return turns;
    // Two first saves of one chat race to create it: the operation id makes the second a replay.
    const create = { id: chatId, scope, ...(options.title === undefined ? {} : { title: options.title }) };
    const session = await provider.sessions.create({ ...create, operationId: operationId('create', create) });
    if (session.deleted) throw new NotFoundError('session', chatId);
    return [];
  };

  const saveOnce = async (chatId: string, inputs: TurnInput[]): Promise<void> => {
    const stored = await ensureSession(chatId);
    let kept = 0;
    while (kept < stored.length && kept < inputs.length && comparable(stored[kept]!) === comparable(inputs[kept]!)) kept += 1;
    const expected = stored.slice(kept).map((t) => t.id);
    const turns = inputs.slice(kept);
    if (expected.length === 0 && turns.length === 0) return;
    // The kept turn before the change pins the id to this transcript, so the same messages saved after another change are a new operation.
    const after = kept === 0 ? null : stored[kept - 1]!.id;
    await provider.sessions.replaceSuffix(chatId, { expected, turns, operationId: operationId('save', { chatId, after, expected, turns }) });
  };

  const store: ChatStore = {
    async saveChat({ chatId, messages }) {
      const inputs = messages.map((m, i) => toTurnInput(m, i));
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await saveOnce(chatId, inputs);
        } catch (error) {
          // Another save changed the transcript between our read and our write: diff again.
          if (!(error instanceof ConflictError) || attempt >= SAVE_ATTEMPTS) throw error;
        }
      }
    },

    async loadChat<M extends UIMessage = UIMessage>(chatId: string) {
      return ((await liveTurns(chatId)) ?? []).map((t) => fromTurn<M>(t));
    },

    onFinish(chatId) {
      return ({ messages }) => store.saveChat({ chatId, messages });
    },
  };
  return store;
}
