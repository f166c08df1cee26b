/**
 * Chat persistence for the AI SDK: a chat is a session (its id is the chat
 * id, its scope the caller's), each `UIMessage` one turn. Saving writes
 * only what changed, in one atomic `replaceSuffix`, under an operation id
 * naming the version of the transcript the change was computed from: a
 * retried request writes nothing twice, and of two saves computed from the
 * same version only one is written (the other diffs again), so the chat is
 * always the messages of one save, never a mix of two.
 */
import { createHash } from 'node:crypto';
import type { Page, Provider, ScopeInput, Session, Turn, TurnInput } from '@agentstate/core';
import { ConflictError, NotFoundError, sameScope, toScope, canonicalJson, transcriptChange } from '@agentstate/core';
import type { UIMessage } from 'ai';
import { fromTurns, toTurnInput } from './messages.js';

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

/** What {@link ChatStore.createChat} takes. */
export interface CreateChatInput {
  /** The chat id; default: a new id. A taken one is a `ConflictError`. */
  id?: string;
  /** The chat's title; default: the store's `title`. */
  title?: string;
}

/** What {@link ChatStore.listChats} takes: a page of chats (see `sessions.list`). */
export interface ListChatsOptions {
  /** At most this many chats; 0 or absent: all of them. */
  limit?: number;
  /** The `nextCursor` of the page before. */
  cursor?: string;
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
   * Concurrent saves of one chat, from any process, leave it equal to the
   * messages of one of them (the last written), never a mix: a save whose
   * transcript changed under it computes its change again (`ConflictError`
   * after three attempts).
   */
  saveChat<M extends UIMessage>(input: SaveChatInput<M>): Promise<void>;
  /**
   * The chat's messages, oldest first, as saved (they pass the SDK's
   * `validateUIMessages`). A chat that does not exist, or lives in another
   * scope, loads as `[]`.
   */
  loadChat<M extends UIMessage = UIMessage>(chatId: string): Promise<M[]>;
  /**
   * Creates an empty chat in the store's scope and returns its id, as the
   * SDK's persistence guide's `createChat` does: the id a chat page opens with.
   */
  createChat(input?: CreateChatInput): Promise<string>;
  /**
   * The chats of the store's scope (one user's), oldest first, as their
   * sessions (`id`, `title`, `createdAt`, `updatedAt`, …); a {@link Page}.
   * A chat is renamed with `provider.sessions.update(id, { title })`.
   */
  listChats(options?: ListChatsOptions): Promise<Page<Session>>;
  /**
   * An `onFinish` for `toUIMessageStreamResponse({ originalMessages, onFinish })`
   * that saves the finished chat.
   */
  onFinish<M extends UIMessage>(chatId: string): (event: FinishEvent<M>) => Promise<void>;
}

/** Attempts of a save that loses a race with another save of the same chat. */
const SAVE_ATTEMPTS = 3;

/**
 * A short, stable operation id for `parts`. Ids stay in the log after a
 * purge (docs/contract.md §4): `parts` must hold no text a purge erases
 * (a title, a message), or a hash of a guess would confirm it.
 */
function operationId(kind: string, parts: unknown): string {
  return `ai-sdk-${kind}-${createHash('sha256').update(canonicalJson(parts)).digest('hex').slice(0, 48)}`;
}

/** Builds a {@link ChatStore} over `provider`. */
export function createChatStore(options: ChatStoreOptions): ChatStore {
  const { provider } = options;
  const scope = toScope(options.scope);

  /** The chat's session and its live turns, or `undefined` when it has none here. */
  const liveChat = async (chatId: string): Promise<{ session: Session; turns: Turn[] } | undefined> => {
    try {
      const session = await provider.sessions.get(chatId);
      if (!sameScope(session.scope, scope)) return undefined;
      return { session, turns: [...(await provider.sessions.turns(chatId))] };
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  };

  /** The chat as of one version of its session (created if missing): the turns read are those of `version`. */
  const readChat = async (chatId: string): Promise<{ version: number; turns: Turn[] }> => {
    let chat = await liveChat(chatId);
    if (!chat) {
      // Two first saves of one chat race to create it: the operation id makes the second a replay. It names the
      // chat and scope, which a purge keeps, never the title, which it erases.
      const create = { id: chatId, scope, ...(options.title === undefined ? {} : { title: options.title }) };
      await provider.sessions.create({ ...create, operationId: operationId('create', { id: chatId, scope }) });
      chat = await liveChat(chatId);
      if (!chat) throw new NotFoundError('session', chatId);
    }
    // Every transcript write bumps the version: unchanged after the turns were read, it is the version they belong to.
    const { syncVersion } = await provider.sessions.get(chatId);
    if (syncVersion !== chat.session.syncVersion) throw new ConflictError(`chat ${chatId} changed while it was read`);
    return { version: syncVersion, turns: chat.turns };
  };

  const saveOnce = async (chatId: string, inputs: TurnInput[]): Promise<void> => {
    const { version, turns: stored } = await readChat(chatId);
    const change = transcriptChange(stored, inputs);
    if (change === undefined) return;
    // One operation per version of the transcript: another change computed from this version (an append too, which
    // `expected` alone would not guard) reuses the id with another input, a ConflictError, and is computed again;
    // the same change (a retried request) is a replay. The version never comes back, so a later save is a new operation.
    await provider.sessions.replaceSuffix(chatId, { ...change, operationId: operationId('save', { chatId, version }) });
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
      return fromTurns<M>((await liveChat(chatId))?.turns ?? []);
    },

    async createChat(input = {}) {
      const title = input.title ?? options.title;
      const session = await provider.sessions.create({ scope, ...(input.id === undefined ? {} : { id: input.id }), ...(title === undefined ? {} : { title }) });
      return session.id;
    },

    listChats(list = {}) {
      return provider.sessions.list({ ...list, scope });
    },

    onFinish(chatId) {
      return ({ messages }) => store.saveChat({ chatId, messages });
    },
  };
  return store;
}
