/** `agentstate memory|sessions|skills history` and `agentstate purge`: versions from the log, and erasure that needs --reason and --yes. */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock, seededEntropy } from '@agentstate/core';
import { openSqlite } from '@agentstate/sqlite';
import { tempDir } from './helpers.js';
import { fails, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

describe('agentstate history and purge', () => {
  const db = tmp.path('lifecycle.db');

  it('prints every version of a memory item, a session and a skill', () => {
    const item = okJson<{ id: string }>(['memory', 'write', 'first words', '--db', db]);
    ok(['memory', 'update', item.id, '--content', 'second words', '--db', db]);
    const versions = okJson<{ seq: number; type: string; record: { content: string } }[]>(['memory', 'history', item.id, '--db', db]);
    expect(versions.map((v) => [v.seq, v.type, v.record.content])).toEqual([
      [1, 'memory.written', 'first words'],
      [2, 'memory.updated', 'second words'],
    ]);
    expect(ok(['memory', 'history', item.id, '--db', db])).toMatch(/memory\.updated.*second words/);
    const session = okJson<{ id: string }>(['sessions', 'create', '--title', 'chat', '--db', db]);
    ok(['sessions', 'append', session.id, '--content', 'hello', '--db', db]);
    expect(okJson<{ type: string }[]>(['sessions', 'history', session.id, '--db', db]).map((v) => v.type)).toEqual([
      'session.created',
      'session.turn_appended',
    ]);
    const table = ok(['sessions', 'history', session.id, '--db', db]).split('\n');
    expect(table[1]).toMatch(/session\.created .* chat$/);
    // Each turn's row says what that turn was, not the session's title again.
    expect(table[2]).toMatch(/session\.turn_appended .* #1 user: "hello"$/);
    const skill = okJson<{ id: string }>(['skills', 'upsert', 'deploy', '--body', 'v1', '--db', db]);
    expect(okJson<unknown[]>(['skills', 'history', skill.id, '--db', db])).toHaveLength(1);
    // By slug, as skills show takes it: the same versions; a slug of no skill is refused as there, in a scope too.
    ok(['skills', 'upsert', 'deploy', '--body', 'v1 in acme', '--scope', 'acme', '--db', db]);
    expect(ok(['skills', 'history', 'deploy', '--db', db])).toBe(ok(['skills', 'history', skill.id, '--db', db]));
    expect(ok(['skills', 'history', 'deploy', '--scope', 'acme', '--db', db])).toMatch(/skill\.upserted .* deploy v1\n$/);
    expect(ok(['skills', 'history', 'deploy', '--scope', 'acme', '--db', db])).not.toBe(ok(['skills', 'history', skill.id, '--db', db]));
    expect(fails(1, ['skills', 'history', 'no-such-skill', '--db', db])).toBe('agentstate: skill not found: no-such-skill');
    expect(ok(['memory', 'history', '0190a0a0-0000-7000-8000-000000000000', '--db', db])).toMatch(/no history/);
  });

  it('purges only with a reason and --yes, and the text leaves the file', () => {
    const item = okJson<{ id: string }>(['memory', 'write', 'Pomegranate-Vault code 9931', '--scope', 'user:zed', '--db', db]);
    expect(fails(1, ['purge', item.id, '--db', db])).toMatch(/--reason/);
    expect(fails(1, ['purge', item.id, '--reason', 'request', '--db', db])).toMatch(/--yes/);
    expect(fails(1, ['purge', item.id, '--matching', 'x', '--reason', 'r', '--yes', '--db', db])).toMatch(/exactly one/);
    expect(fails(1, ['purge', item.id, '--reason', 'r', '--yes', '--compact', '--db', db])).toMatch(/--compact is for PostgreSQL/);
    const result = okJson<{ seq: number; memory: string[] }>(['purge', '--namespace', 'user:zed', '--reason', 'account closed', '--yes', '--db', db]);
    expect(result.memory).toEqual([item.id]);
    expect(readFileSync(db).includes('Pomegranate-Vault')).toBe(false);
    expect(ok(['purge', '--matching', 'nothing here', '--reason', 'r', '--yes', '--db', db])).toMatch(/nothing purged/);
    expect(okJson<{ erasedBy?: number }[]>(['memory', 'history', item.id, '--db', db])[0]!.erasedBy).toBe(result.seq);
    expect(ok(['verify', '--db', db])).toMatch(/ok|passed|healthy/i);
  });

  it('purges --matching a text wherever a record holds it: a tool call input, a title, a skill body, a memory key; none of the file, -wal, -shm or an export holds it after', async () => {
    const file = tmp.path('matching.db');
    // This process's clock stamps the purge: a number of eleven digits stands in no id, instant or checksum.
    const order = 90417352816;
    const state = await openSqlite(file, { clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(18) });
    const chat = await state.sessions.create({ title: 'orders' });
    await state.sessions.appendTurn({
      sessionId: chat.id,
      role: 'assistant',
      parts: [{ type: 'tool-call', callId: 'c1', toolName: 'lookup', input: { order } }],
    });
    await state.sessions.create({ title: `order ${order}` });
    await state.skills.upsert({ slug: 'returns', body: `look up order ${order} first` });
    await state.memory.write({ content: 'customer prefers email', key: `order-${order}` });
    await state.close();
    const raw = () =>
      [file, `${file}-wal`, `${file}-shm`]
        .filter(existsSync)
        .map((p) => readFileSync(p).toString('latin1'))
        .join('');
    expect(raw()).toContain(String(order));
    const result = okJson<Record<'sessions' | 'turns' | 'skills' | 'memory', string[]>>([
      'purge',
      '--matching',
      String(order),
      '--reason',
      'r',
      '--yes',
      '--db',
      file,
    ]);
    expect([result.sessions.length, result.turns.length, result.skills.length, result.memory.length]).toEqual([1, 1, 1, 1]);
    expect(raw().includes(String(order))).toBe(false);
    expect(ok(['export', '--db', file]).includes(String(order))).toBe(false);
  });
});
