/**
 * `--operation-id` on every write command: each write carries its operation
 * id into its event; run again with the same id and input (another run, once
 * another process), a write prints the first result and appends nothing;
 * another input under the id is refused as a conflict.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '@agentstate/sqlite';
import { okJson as okJsonProcess, tempDir } from './helpers.js';
import { fails, head, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

describe('agentstate --operation-id', () => {
  const db = tmp.path('idempotent.db');

  it('makes every write idempotent across runs and processes, and refuses another input under the same id', async () => {
    const run = (args: string[], json = okJson) => json([...args, '--db', db, '--json']);
    // The run again of the first write is another process: what it recognises is in the file, not in a process.
    const twice = (args: string[], again = okJson) => {
      const first = run(args);
      const events = head(db);
      expect(run(args, again)).toEqual(first);
      expect(head(db)).toBe(events);
      return first;
    };
    const session = twice(['sessions', 'create', '--title', 't', '--operation-id', 'op-1'], okJsonProcess);
    run(['sessions', 'append', session.id, '--content', 'hello', '--operation-id', 'op-2']);
    run(['skills', 'upsert', 'deploy', '--body', 'ship', '--operation-id', 'op-3']);
    expect(twice(['skills', 'outcome', 'deploy', '--success', '--operation-id', 'op-4'])).toMatchObject({ uses: 1, wins: 1 });
    const item = run(['memory', 'write', 'a fact', '--operation-id', 'op-5']);
    run(['memory', 'delete', item.id, '--operation-id', 'op-6']);
    run(['skills', 'delete', 'deploy', '--operation-id', 'op-7']);
    run(['sessions', 'delete', session.id, '--operation-id', 'op-8']);
    expect(fails(1, ['memory', 'write', 'another fact', '--operation-id', 'op-5', '--db', db])).toContain('operation id "op-5" was already used');

    const p = await openSqlite(db, { readonly: true });
    try {
      const events = await p.log.read({ stream: 'state' });
      expect(events.map((e) => (e.payload as { operation?: { id: string } }).operation?.id)).toEqual([
        'op-1',
        'op-2',
        'op-3',
        'op-4',
        'op-5',
        'op-6',
        'op-7',
        'op-8',
      ]);
    } finally {
      await p.close();
    }
  });
});
