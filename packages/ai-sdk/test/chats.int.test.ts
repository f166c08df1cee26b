import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { UIMessage } from 'ai';
import { ConflictError, ValidationError, canonicalJson } from '@agentstate/core';
import { openSqlite, type SqliteProvider } from '@agentstate/sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChatStore, memoryTools } from '../src/index.js';
import { tempDb } from './helpers.js';
import { SDKS, streamStep, textChunks } from './sdks.js';

/** A started save-worker.ts: `ready` once it has opened the file, `go` starts its saves, `done` when it exited cleanly. */
function worker(file: string, chatId: string, messages: UIMessage[]) {
  const script = fileURLToPath(new URL('./save-worker.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), script, file, chatId, JSON.stringify(messages)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  return {
    ready: once(child.stdout, 'data'),
    go: () => child.stdin.write('go\n'),
    done: exited.then(([code]) => expect(code).toBe(0)),
  };
}

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const assistant = (id: string, text: string, metadata?: unknown): UIMessage => ({
  id,
  role: 'assistant',
  ...(metadata === undefined ? {} : { metadata }),
  parts: [{ type: 'step-start' }, { type: 'text', text, state: 'done' }],
});

let db: { db: string; cleanup: () => void };
let state: SqliteProvider;

beforeEach(async () => {
  db = tempDb();
  state = await openSqlite(db.db);
});

afterEach(async () => {
  await state.close();
  db.cleanup();
});

/** Events in the state stream so far. */
const head = () => state.log.head('state');

describe('saveChat and loadChat', () => {
  it('store a chat as a session of the caller scope and read back exactly what was saved', async () => {
    const chats = createChatStore({ provider: state, scope: ['user', 'ana'] });
    const messages = [user('u1', 'Hi'), assistant('a1', 'Hello!', { model: 'mock', tokens: 3 })];
    await chats.saveChat({ chatId: 'chat-1', messages });
    expect(await chats.loadChat('chat-1')).toStrictEqual(messages);
    const session = await state.sessions.get('chat-1');
    expect(session.scope).toEqual(['user', 'ana']);
    const turns = await state.sessions.turns('chat-1');
    expect(turns.map((t) => [t.role, t.content])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello!'],
    ]);
  });

  it('append only what is new, and write nothing when nothing changed', async () => {
    const chats = createChatStore({ provider: state });
    const first = [user('u1', 'Hi'), assistant('a1', 'Hello!')];
    await chats.saveChat({ chatId: 'c', messages: first });
    const before = await state.sessions.turns('c');
    const events = await head();
    await chats.saveChat({ chatId: 'c', messages: first });
    expect(await head()).toBe(events);

    const second = [...first, user('u2', 'And now?')];
    await chats.saveChat({ chatId: 'c', messages: second });
    expect(await head()).toBe(events + 1);
    const after = await state.sessions.turns('c');
    expect(after.slice(0, 2)).toEqual(before);
    expect(await chats.loadChat('c')).toStrictEqual(second);
  });

  it('replace a regenerated or continued assistant message in one write, keeping the turns before it', async () => {
    const chats = createChatStore({ provider: state });
    await chats.saveChat({ chatId: 'c', messages: [user('u1', 'Hi'), assistant('a1', 'Hel')] });
    const [kept] = await state.sessions.turns('c');
    const events = await head();

    const continued = [user('u1', 'Hi'), assistant('a1', 'Hello, how can I help?')];
    await chats.saveChat({ chatId: 'c', messages: continued });
    expect(await head()).toBe(events + 1);
    expect(await chats.loadChat('c')).toStrictEqual(continued);

    const regenerated = [user('u1', 'Hi'), assistant('a2', 'Hey there.')];
    await chats.saveChat({ chatId: 'c', messages: regenerated });
    expect(await chats.loadChat('c')).toStrictEqual(regenerated);
    const turns = await state.sessions.turns('c');
    expect(turns[0]).toEqual(kept);
    expect(turns).toHaveLength(2);

    // Back to a shorter chat: the removed messages go.
    await chats.saveChat({ chatId: 'c', messages: [user('u1', 'Hi')] });
    expect(await chats.loadChat('c')).toStrictEqual([user('u1', 'Hi')]);
  });

  it('do not duplicate a retried request arriving while the first is saved', async () => {
    const chats = createChatStore({ provider: state, scope: ['user', 'ana'] });
    const messages = [user('u1', 'Hi'), assistant('a1', 'Hello!')];
    await Promise.all([chats.saveChat({ chatId: 'c', messages }), chats.saveChat({ chatId: 'c', messages }), chats.saveChat({ chatId: 'c', messages })]);
    expect(await state.sessions.turns('c')).toHaveLength(2);
    const next = [...messages, user('u2', 'More')];
    await Promise.all([chats.saveChat({ chatId: 'c', messages: next }), chats.saveChat({ chatId: 'c', messages: next })]);
    expect(await chats.loadChat('c')).toStrictEqual(next);
    expect(await state.sessions.turns('c')).toHaveLength(3);
  });

  it('leave the chat equal to one of two saves that append at once, never a mix of both', async () => {
    const chats = createChatStore({ provider: state });
    const base = [user('u1', 'Hi'), assistant('a1', 'Hello!')];
    await chats.saveChat({ chatId: 'c', messages: base });
    const one = [...base, user('u2', 'From one tab')];
    const other = [...base, user('u3', 'From another tab'), assistant('a3', 'Answered there')];
    await Promise.all([chats.saveChat({ chatId: 'c', messages: one }), chats.saveChat({ chatId: 'c', messages: other })]);
    expect([one, other]).toContainEqual(await chats.loadChat('c'));
  });

  it('save messages again after they were removed, though the chat is back where it was before them', async () => {
    const chats = createChatStore({ provider: state });
    const base = [user('u1', 'Hi'), assistant('a1', 'Hello!')];
    const longer = [...base, user('u2', 'More')];
    await chats.saveChat({ chatId: 'c', messages: base });
    await chats.saveChat({ chatId: 'c', messages: longer });
    await chats.saveChat({ chatId: 'c', messages: base });
    await chats.saveChat({ chatId: 'c', messages: longer });
    expect(await chats.loadChat('c')).toStrictEqual(longer);
  });

  it('do not duplicate a request saved by two processes at once', async () => {
    const messages = [user('u1', 'Hi'), assistant('a1', 'Hello!')];
    const workers = [worker(db.db, 'c', messages), worker(db.db, 'c', messages)];
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.go();
    await Promise.all(workers.map((w) => w.done));
    expect(await state.sessions.turns('c')).toHaveLength(2);
    expect(await createChatStore({ provider: state, scope: ['user', 'ana'] }).loadChat('c')).toStrictEqual(messages);
  });

  it("keep one user's chats from another", async () => {
    const ana = createChatStore({ provider: state, scope: ['user', 'ana'] });
    const bob = createChatStore({ provider: state, scope: ['user', 'bob'] });
    await ana.saveChat({ chatId: 'c', messages: [user('u1', 'secret')] });
    expect(await bob.loadChat('c')).toEqual([]);
    await expect(bob.saveChat({ chatId: 'c', messages: [user('u1', 'mine now')] })).rejects.toBeInstanceOf(ConflictError);
    expect(await ana.loadChat('c')).toStrictEqual([user('u1', 'secret')]);
  });

  it('refuse a message that cannot be stored, naming it, and write nothing', async () => {
    const chats = createChatStore({ provider: state });
    await chats.saveChat({ chatId: 'c', messages: [user('u1', 'Hi')] });
    const events = await head();
    const bad = { id: 'a1', role: 'assistant', parts: [{ type: 'data-chart', data: { at: new Date(0) } }] } as UIMessage;
    await expect(chats.saveChat({ chatId: 'c', messages: [user('u1', 'Hi'), bad] })).rejects.toMatchObject({
      code: 'invalid',
      field: 'messages.1.parts.0',
    });
    const wrongRole = { id: 'x', role: 'tool', parts: [] } as unknown as UIMessage;
    await expect(chats.saveChat({ chatId: 'c', messages: [wrongRole] })).rejects.toBeInstanceOf(ValidationError);
    expect(await head()).toBe(events);
  });

  it('leave no hash of the erased chat in the log once it is purged: the ids it writes under derive from no text a purge erases', async () => {
    const title = 'Chat about Narwhal-62';
    const chats = createChatStore({ provider: state, scope: ['user', 'ana'], title });
    await chats.saveChat({ chatId: 'chat-9', messages: [user('u1', 'my code is Narwhal-62'), assistant('a1', 'Noted.')] });
    await state.purge({ id: 'chat-9', reason: 'erasure request' });
    const log = JSON.stringify(await state.log.read({ stream: 'state' }));
    expect(log).not.toContain('Narwhal-62');
    // A guess of the title, hashed as an operation id could derive it, is confirmed by nothing in the log.
    const guess = createHash('sha256')
      .update(canonicalJson({ id: 'chat-9', scope: ['user', 'ana'], title }))
      .digest('hex');
    expect(log).not.toContain(guess.slice(0, 16));
  });

  it('load an unknown chat as an empty one', async () => {
    expect(await createChatStore({ provider: state }).loadChat('nope')).toEqual([]);
  });
});

describe('createChat and listChats', () => {
  it("create an empty chat in the user's scope and list that user's chats only, oldest first", async () => {
    const ana = createChatStore({ provider: state, scope: ['user', 'ana'], title: 'New chat' });
    const bob = createChatStore({ provider: state, scope: ['user', 'bob'] });
    const first = await ana.createChat();
    expect(await ana.loadChat(first)).toEqual([]);
    await ana.saveChat({ chatId: first, messages: [user('u1', 'Hi')] });
    const second = await ana.createChat({ id: 'trip', title: 'Trip' });
    await bob.saveChat({ chatId: 'bobs', messages: [user('u1', 'Yo')] });
    expect(second).toBe('trip');
    expect((await ana.listChats()).map((c) => [c.id, c.title, c.scope])).toEqual([
      [first, 'New chat', ['user', 'ana']],
      ['trip', 'Trip', ['user', 'ana']],
    ]);
    expect((await bob.listChats()).map((c) => c.id)).toEqual(['bobs']);
    const page = await ana.listChats({ limit: 1 });
    expect(page.map((c) => c.id)).toEqual([first]);
    expect((await ana.listChats({ limit: 1, cursor: page.nextCursor })).map((c) => c.id)).toEqual(['trip']);
    await expect(bob.createChat({ id: 'trip' })).rejects.toBeInstanceOf(ConflictError);
    // A renamed chat lists under its new title.
    await state.sessions.update('trip', { title: 'Lisbon' });
    expect((await ana.listChats()).map((c) => c.title)).toEqual(['New chat', 'Lisbon']);
  });
});

describe.each(SDKS)('onFinish with streamText and toUIMessageStreamResponse, $name', (sdk) => {
  it('saves each finished exchange, tool calls included, and the next request continues from it', async () => {
    const { ai, MockLanguageModel } = sdk;
    const chats = createChatStore({ provider: state, scope: ['user', 'ana'] });
    const tools = memoryTools({ provider: state, scope: ['user', 'ana'] });

    /** One request of a chat route: load, append the user's message, stream, save on finish. */
    const request = async (chatId: string, message: UIMessage, model: InstanceType<typeof MockLanguageModel>) => {
      const originalMessages = [...(await chats.loadChat(chatId)), message];
      const result = ai.streamText({
        model,
        messages: await ai.convertToModelMessages(originalMessages),
        tools,
        stopWhen: ai.stepCountIs(5),
      });
      const response = result.toUIMessageStreamResponse({ originalMessages, onFinish: chats.onFinish(chatId) });
      await response.text();
    };

    await request(
      'chat',
      user('u1', 'My name is Ana.'),
      new MockLanguageModel({
        doStream: [
          streamStep(
            [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'remember', input: JSON.stringify({ content: 'The user is called Ana' }) }],
            'tool-calls',
          ),
          streamStep(textChunks('t1', 'Nice to meet ', 'you, Ana.')),
        ],
      }),
    );
    const first = await chats.loadChat('chat');
    expect(first.map((m) => m.role)).toEqual(['user', 'assistant']);
    const toolPart = first[1]!.parts.find((p) => p.type === 'tool-remember');
    expect(toolPart).toMatchObject({ state: 'output-available', input: { content: 'The user is called Ana' }, output: { content: 'The user is called Ana' } });
    expect(first[1]!.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text)).toEqual(['Nice to meet you, Ana.']);
    await expect(ai.validateUIMessages({ messages: first, tools })).resolves.toHaveLength(2);

    await request('chat', user('u2', 'Thanks'), new MockLanguageModel({ doStream: [streamStep(textChunks('t2', 'You are welcome.'))] }));
    const second = await chats.loadChat('chat');
    expect(second.slice(0, 2)).toStrictEqual(first);
    expect(second.map((m) => m.id).slice(2, 3)).toEqual(['u2']);
    expect(second).toHaveLength(4);
    await expect(ai.validateUIMessages({ messages: second, tools })).resolves.toHaveLength(4);
    // The transcript is searchable: the assistant's words are in the turn's text.
    const hits = await state.sessions.search({ query: 'welcome', scope: ['user', 'ana'] });
    expect(hits.map((h) => h.turn.content)).toEqual(['You are welcome.']);
  });
});
