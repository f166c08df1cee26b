/** E21–E22: a purge leaves no input hash that would confirm a guess of the erased text (docs/contract.md §4 and §7). */
import type { EventSourcedProvider } from '@agentstate/core';
import { ERASED, OperationConflictError, operationInputHash, STATE_STREAM } from '@agentstate/core';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import type { ProviderCheck } from '../suite/harness.js';
import { checks, freshLog } from '../suite/harness.js';
import { storedSnapshotRows } from '../suite/snapshot-rows.js';
import { exportText } from '../suite/export-read.js';
import { says } from '../suite/fixtures.js';

/** Every input hash the log's events carry, by operation id. */
async function inputHashes(p: EventSourcedProvider): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const event of await p.log.read({ stream: STATE_STREAM })) {
    const operation = (event.payload as { operation?: { id: string; inputHash?: string } }).operation;
    if (operation?.inputHash !== undefined) out.set(operation.id, operation.inputHash);
  }
  return out;
}

/** Everything a purge must leave clean: the stored events, an export, the stored snapshot rows and the operation index (a capture of the tables). */
async function everything(p: EventSourcedProvider): Promise<string> {
  const rows = (await storedSnapshotRows(p.log)).map((row) => row.data);
  return [JSON.stringify(await p.log.read({ stream: STATE_STREAM })), await exportText(p.log), ...rows, JSON.stringify((await p.snapshot()).operations)].join(
    '\n',
  );
}

export const erasureTraceChecks: ProviderCheck[] = checks(['eventSourced'], {
  'E21 after a purge no hash of the erased input remains: the input hash of each operation that wrote a purged record (a batch whose later event did included) is gone from the log, an export, the stored snapshots and the operation index; other operations keep theirs':
    freshLog(async (p) => {
      const item = await p.memory.write({ content: 'e22 secret Okapi-73', operationId: 'e22-memory' });
      const chat = await p.sessions.create({ title: 'e22 chat Okapi-73', operationId: 'e22-create' });
      await p.sessions.appendTurn({ sessionId: chat.id, role: 'user', content: 'e22 turn Okapi-73', operationId: 'e22-turn' });
      const other = await p.sessions.create({ title: 'e22 other' });
      const [, hidden] = await p.sessions.appendTurns(other.id, [says('e22 visible turn'), says('e22 batch Kudu-58')], { operationId: 'e22-turns' });
      const [, note] = await p.memory.writeMany([{ content: 'e22 visible note' }, { content: 'e22 batch note Kudu-58' }], { operationId: 'e22-many' });
      await p.memory.write({ content: 'e22 kept', operationId: 'e22-kept' });
      await p.saveSnapshot();
      const before = await inputHashes(p);
      // A guess of the text, hashed as the store hashes its input, is confirmed by the log before the purge.
      const guess = operationInputHash('memory.write', { content: 'e22 secret Okapi-73' });
      expect(before.get('e22-memory')).toBe(guess);
      expect(await everything(p)).toContain(guess);

      await p.purge({ id: item.id, reason: 'e22 memory' });
      await p.purge({ id: chat.id, reason: 'e22 session' });
      await p.purge({ id: hidden!.id, reason: 'e22 one turn of a batch' });
      await p.purge({ id: note!.id, reason: 'e22 one item of a batch' });

      const after = await everything(p);
      for (const id of ['e22-memory', 'e22-create', 'e22-turn', 'e22-turns', 'e22-many']) {
        expect(after, `the input hash of ${id}`).not.toContain(before.get(id)!);
      }
      expect(after).not.toContain(guess);
      expect(after).not.toContain(operationInputHash('sessions.appendTurn', { sessionId: chat.id, role: 'user', content: 'e22 turn Okapi-73' }));
      // The operations keep their ids; an operation that wrote nothing purged keeps its hash.
      const index = new Map((await p.snapshot()).operations.map((o) => [o.id, o]));
      for (const id of ['e22-memory', 'e22-create', 'e22-turn', 'e22-turns', 'e22-many']) expect(index.get(id)).not.toHaveProperty('inputHash');
      expect(index.get('e22-kept')?.inputHash).toBe(before.get('e22-kept'));
      expect(after).toContain(before.get('e22-kept')!);
    }),
  'E22 a retry under an operation id whose input hash a purge dropped is a ConflictError and writes nothing; an operation the purge did not touch still replays':
    freshLog(async (p) => {
      const item = await p.memory.write({ content: 'e23 secret Tapir-11', operationId: 'e23-memory' });
      const [first] = await p.memory.writeMany([{ content: 'e23 Tapir-11 one' }, { content: 'e23 two' }], { operationId: 'e23-many' });
      const kept = await p.memory.write({ content: 'e23 kept', operationId: 'e23-kept' });
      await p.purge({ matching: 'Tapir-11', reason: 'e23' });
      const head = await p.log.head(STATE_STREAM);
      await expectError(() => p.memory.write({ content: 'e23 secret Tapir-11', operationId: 'e23-memory' }), OperationConflictError);
      await expectError(() => p.memory.write({ content: 'e23 another guess', operationId: 'e23-memory' }), OperationConflictError);
      await expectError(
        () => p.memory.writeMany([{ content: 'e23 Tapir-11 one' }, { content: 'e23 two' }], { operationId: 'e23-many' }),
        OperationConflictError,
      );
      expect(await p.log.head(STATE_STREAM)).toBe(head);
      expect((await p.memory.getAny(item.id)).content).toBe(ERASED);
      expect((await p.memory.getAny(first!.id)).content).toBe(ERASED);
      expect(await p.memory.write({ content: 'e23 kept', operationId: 'e23-kept' })).toEqual(kept);
      expect(await p.log.head(STATE_STREAM)).toBe(head);
    }),
});
