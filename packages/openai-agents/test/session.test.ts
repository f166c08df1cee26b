import { ConflictError, createInMemoryProvider, NotFoundError, ValidationError } from '@agentstate/core';
import { AgentStateSession } from '@agentstate/openai-agents';
import type { AgentInputItem } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';

const user = (content: string): AgentInputItem => ({ role: 'user', content });
const texts = (items: AgentInputItem[]) => items.map((i) => ('content' in i && typeof i.content === 'string' ? i.content : '?'));

describe('AgentStateSession', () => {
  it('keeps items in order and returns the newest `limit` oldest first', async () => {
    const session = new AgentStateSession(createInMemoryProvider());
    await session.addItems([user('a'), user('b')]);
    await session.addItems([]);
    await session.addItems([user('c')]);
    expect(texts(await session.getItems())).toEqual(['a', 'b', 'c']);
    expect(texts(await session.getItems(2))).toEqual(['b', 'c']);
    expect(texts(await session.getItems(10))).toEqual(['a', 'b', 'c']);
    expect(await session.getItems(0)).toEqual([]);
    expect(await session.getItems(-1)).toEqual([]);
    // As MemorySession slices: a fractional limit rounds up, an infinite one is everything.
    expect(texts(await session.getItems(1.5))).toEqual(['b', 'c']);
    expect(texts(await session.getItems(Number.POSITIVE_INFINITY))).toEqual(['a', 'b', 'c']);
  });

  it('pops the newest item, and clears the history but keeps the session', async () => {
    const provider = createInMemoryProvider();
    const session = new AgentStateSession(provider);
    expect(await session.popItem()).toBeUndefined();
    await session.addItems([user('a'), user('b')]);
    expect(await session.popItem()).toEqual(user('b'));
    expect(texts(await session.getItems())).toEqual(['a']);
    const id = await session.getSessionId();
    await session.clearSession();
    await session.clearSession();
    expect(await session.getItems()).toEqual([]);
    expect(await session.popItem()).toBeUndefined();
    expect(await session.getSessionId()).toBe(id);
    await session.addItems([user('c')]);
    expect(texts(await session.getItems())).toEqual(['c']);
  });

  it('returns copies: changing them or the items given changes nothing stored', async () => {
    const session = new AgentStateSession(createInMemoryProvider());
    const given = { role: 'user', content: [{ type: 'input_text', text: 'original' }] } as AgentInputItem;
    await session.addItems([given]);
    (given as { content: { text: string }[] }).content[0]!.text = 'changed by caller';
    const [read] = await session.getItems();
    (read as { content: { text: string }[] }).content[0]!.text = 'changed by reader';
    expect(await session.getItems()).toEqual([{ role: 'user', content: [{ type: 'input_text', text: 'original' }] }]);
  });

  it('writes nothing when an item in the middle is invalid or cannot be stored', async () => {
    const provider = createInMemoryProvider();
    const session = new AgentStateSession(provider);
    await session.addItems([user('kept')]);
    const invalid = { type: 'function_call', callId: 'c' } as unknown as AgentInputItem;
    await expect(session.addItems([user('x'), invalid, user('y')])).rejects.toThrow(ValidationError);
    await expect(session.addItems([user('x'), user('z'.repeat(1_000_001)), user('y')])).rejects.toThrow(ValidationError);
    expect(texts(await session.getItems())).toEqual(['kept']);
    expect(await provider.sessions.turns(await session.getSessionId())).toHaveLength(1);
  });

  it('maps a caller-given id to a session, created on first use and shared by every instance', async () => {
    const provider = createInMemoryProvider();
    const first = new AgentStateSession(provider, { sessionId: 'chat-42', scope: ['user', 'ada'], title: 'Ada' });
    const second = new AgentStateSession(provider, { sessionId: 'chat-42' });
    const [a, b] = await Promise.all([first.getSessionId(), second.getSessionId()]);
    expect([a, b]).toEqual(['chat-42', 'chat-42']);
    await first.addItems([user('hello')]);
    expect(texts(await second.getItems())).toEqual(['hello']);
    expect(await provider.sessions.get('chat-42')).toMatchObject({ scope: ['user', 'ada'], title: 'Ada' });
    await provider.sessions.delete('chat-42');
    await expect(new AgentStateSession(provider, { sessionId: 'chat-42' }).getItems()).rejects.toThrow(NotFoundError);
  });

  it('gives each session without an id a fresh one, its items isolated', async () => {
    const provider = createInMemoryProvider();
    const [a, b] = [new AgentStateSession(provider), new AgentStateSession(provider)];
    await a.addItems([user('for a')]);
    expect(await b.getItems()).toEqual([]);
    expect(await a.getSessionId()).not.toBe(await b.getSessionId());
  });
});

describe('history transactions', () => {
  it('append items once per operation id, and refuse the id for another transaction', async () => {
    const session = new AgentStateSession(createInMemoryProvider());
    const args = { operationId: 'op-1', transaction: { type: 'append_items' as const, items: [user('a'), user('b')] } };
    await session.applyHistoryTransaction(args);
    await session.applyHistoryTransaction(structuredClone(args));
    expect(texts(await session.getItems())).toEqual(['a', 'b']);
    await expect(session.applyHistoryTransaction({ operationId: 'op-1', transaction: { type: 'append_items', items: [user('c')] } })).rejects.toThrow(
      ConflictError,
    );
    expect(texts(await session.getItems())).toEqual(['a', 'b']);
  });

  it('replace a matching suffix once, survive a retry, and refuse a suffix that no longer matches', async () => {
    const session = new AgentStateSession(createInMemoryProvider());
    await session.addItems([user('a'), user('b'), user('c')]);
    const args = {
      operationId: 'op-2',
      transaction: { type: 'replace_suffix' as const, expectedSuffix: [user('b'), user('c')], replacement: [user('summary')] },
    };
    await session.applyHistoryTransaction(args);
    expect(texts(await session.getItems())).toEqual(['a', 'summary']);
    await session.applyHistoryTransaction(args);
    expect(texts(await session.getItems())).toEqual(['a', 'summary']);
    const stale = { operationId: 'op-3', transaction: { type: 'replace_suffix' as const, expectedSuffix: [user('c')], replacement: [] } };
    await expect(session.applyHistoryTransaction(stale)).rejects.toThrow(ConflictError);
    const tooLong = {
      operationId: 'op-4',
      transaction: { type: 'replace_suffix' as const, expectedSuffix: [user('z'), user('a'), user('summary')], replacement: [] },
    };
    await expect(session.applyHistoryTransaction(tooLong)).rejects.toThrow(ConflictError);
    expect(texts(await session.getItems())).toEqual(['a', 'summary']);
  });

  it('refuse an operation id used again for any other transaction, whether or not its suffix matches', async () => {
    const session = new AgentStateSession(createInMemoryProvider());
    await session.addItems([user('a'), user('b')]);
    const replace = (expectedSuffix: AgentInputItem[], replacement: AgentInputItem[]) => ({
      operationId: 'op',
      transaction: { type: 'replace_suffix' as const, expectedSuffix, replacement },
    });
    await session.applyHistoryTransaction(replace([user('b')], [user('c')]));
    // Each matches the history now, so only the reused id can refuse them.
    const others = [
      replace([user('c')], [user('d')]),
      replace([], [user('d')]),
      replace([user('a'), user('c')], []),
      { operationId: 'op', transaction: { type: 'append_items' as const, items: [user('c')] } },
    ];
    for (const args of others) await expect(session.applyHistoryTransaction(args)).rejects.toThrow(ConflictError);
    expect(texts(await session.getItems())).toEqual(['a', 'c']);
    // The same transaction again is a retry: nothing changes.
    await session.applyHistoryTransaction(replace([user('b')], [user('c')]));
    expect(texts(await session.getItems())).toEqual(['a', 'c']);

    // An append's id is refused for a replacement that would add the same items.
    await session.applyHistoryTransaction({ operationId: 'op-append', transaction: { type: 'append_items', items: [user('e')] } });
    await expect(session.applyHistoryTransaction({ ...replace([], [user('e')]), operationId: 'op-append' })).rejects.toThrow(ConflictError);
    expect(texts(await session.getItems())).toEqual(['a', 'c', 'e']);
  });

  it('recognise a replacement another attempt applied between the look-up of its id and the read of the suffix', async () => {
    const provider = createInMemoryProvider();
    const other = new AgentStateSession(provider, { sessionId: 's' });
    await other.addItems([user('a'), user('b')]);
    const args = { operationId: 'op', transaction: { type: 'replace_suffix' as const, expectedSuffix: [user('b')], replacement: [user('c')] } };
    // The other attempt lands just before this one reads the suffix, which then no longer matches.
    let raced = false;
    const sessions = new Proxy(provider.sessions, {
      get: (target, key) =>
        key === 'turns'
          ? async (...call: Parameters<typeof target.turns>) => {
              if (!raced) {
                raced = true;
                await other.applyHistoryTransaction(args);
              }
              return target.turns(...call);
            }
          : Reflect.get(target, key),
    });
    const racing = new Proxy(provider, { get: (target, key) => (key === 'sessions' ? sessions : Reflect.get(target, key)) });
    await new AgentStateSession(racing, { sessionId: 's' }).applyHistoryTransaction(args);
    expect(raced).toBe(true);
    expect(texts(await other.getItems())).toEqual(['a', 'c']);
  });

  it('keep operation ids apart between sessions', async () => {
    const provider = createInMemoryProvider();
    const [a, b] = [new AgentStateSession(provider), new AgentStateSession(provider)];
    const args = { operationId: 'same', transaction: { type: 'append_items' as const, items: [user('x')] } };
    await a.applyHistoryTransaction(args);
    await b.applyHistoryTransaction(args);
    expect(texts(await b.getItems())).toEqual(['x']);
  });

  it('refuse malformed arguments and invalid items before writing', async () => {
    const session = new AgentStateSession(createInMemoryProvider());
    const bad = [
      { operationId: ' ', transaction: { type: 'append_items', items: [] } },
      { operationId: 'op', transaction: { type: 'rewrite' } },
      { operationId: 'op', transaction: { type: 'append_items', items: [user('a'), { role: 'nobody', content: 1 }] } },
    ];
    for (const args of bad) await expect(session.applyHistoryTransaction(args as never)).rejects.toThrow(ValidationError);
    expect(await session.getItems()).toEqual([]);
  });
});

describe('initialItems', () => {
  it('start a session this instance creates, as MemorySession starts with them', async () => {
    const provider = createInMemoryProvider();
    const fresh = new AgentStateSession(provider, { initialItems: [user('hello'), user('again')] });
    expect(texts(await fresh.getItems())).toEqual(['hello', 'again']);
    await fresh.addItems([user('more')]);
    expect(texts(await fresh.getItems())).toEqual(['hello', 'again', 'more']);
    const named = new AgentStateSession(provider, { sessionId: 'chat-1', initialItems: [user('seed')] });
    expect(texts(await named.getItems())).toEqual(['seed']);
  });

  it('are not written again into a session that already exists', async () => {
    const provider = createInMemoryProvider();
    await new AgentStateSession(provider, { sessionId: 'chat-1', initialItems: [user('seed')] }).addItems([user('next')]);
    const reopened = new AgentStateSession(provider, { sessionId: 'chat-1', initialItems: [user('seed')] });
    expect(texts(await reopened.getItems())).toEqual(['seed', 'next']);
  });

  it('are checked when the session is constructed: a refused item creates nothing', async () => {
    const provider = createInMemoryProvider();
    const invalid = { type: 'function_call', callId: 'c' } as unknown as AgentInputItem;
    expect(() => new AgentStateSession(provider, { sessionId: 's', initialItems: [user('a'), invalid] })).toThrow(ValidationError);
    expect(() => new AgentStateSession(provider, { sessionId: 's', initialItems: [user('z'.repeat(1_000_001))] })).toThrow(ValidationError);
    expect(await provider.sessions.list()).toEqual([]);
  });
});
