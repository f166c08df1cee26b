/** E18–E22: what a purge selects, the marks it leaves, and no input hash that would confirm a guess of the erased text (docs/contract.md §4, §7). */
import { createHash } from 'node:crypto';
import type { EventSourcedProvider, LogEvent, Part } from '@agentstate/core';
import { ERASED, ExportFormatError, NotFoundError, OperationConflictError, operationInputHash, STATE_STREAM } from '@agentstate/core';
import { exportLine, ExportReader } from '@agentstate/core/backend';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { exportText } from '../suite/log-cut.js';
import { says } from '../suite/fixtures.js';
import { checks, freshLog, type ProviderCheck } from '../suite/harness.js';
import { expectReplayEqualsTables, storedText } from './erasure.js';

/** A number no id, instant or clock reading holds: the text is its JSON. */
const ORDER = 90417352816;
const TEXT = String(ORDER);

const NOTHING = { seq: 0, sessions: [], turns: [], skills: [], memory: [] };

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
  return [await storedText(p), await exportText(p.log), JSON.stringify((await p.snapshot()).operations)].join('\n');
}

export const purgeTextChecks: ProviderCheck[] = checks(['eventSourced'], {
  'E18 purge by text finds it in every field a purge erases (parts, tool inputs and results, data, metadata, titles, skill names, bodies and tags, memory keys and sources), and takes a session or skill that holds it whole':
    freshLog(async (p) => {
      const chat = await p.sessions.create({ title: 'e18 chat' });
      const turn = (parts: Part[], metadata?: Record<string, unknown>) =>
        p.sessions.appendTurn({ sessionId: chat.id, role: 'assistant', parts, ...(metadata ? { metadata } : {}) });
      const held = [
        await turn([{ type: 'tool-call', callId: 'c1', toolName: 'lookup', input: { order: ORDER } }]),
        await turn([{ type: 'reasoning', text: `the order is ${TEXT}` }]),
        await turn([{ type: 'tool-result', callId: 'c1', toolName: 'lookup', output: [{ receipt: `r-${TEXT}` }], isError: false }]),
        await turn([{ type: 'data', name: 'cart', data: { [`sku${TEXT}`]: true } }]),
        await turn([{ type: 'text', text: 'e18 plain' }], { ref: { order: ORDER } }),
      ];
      const keptTurn = await turn([{ type: 'tool-call', callId: 'c2', toolName: 'lookup', input: { order: 1 } }]);
      const titled = await p.sessions.create({ title: `e18 order ${TEXT}` });
      const titledTurn = await p.sessions.appendTurn({ sessionId: titled.id, role: 'user', content: 'e18 hello' });
      const tagged = await p.sessions.create({ title: 'e18 tagged', metadata: { order: ORDER } });
      const taggedTurn = await p.sessions.appendTurn({ sessionId: tagged.id, role: 'user', content: 'e18 hi' });
      const keptSession = await p.sessions.create({ title: 'e18 kept', metadata: { order: 2 } });
      const skills = [
        await p.skills.upsert({ slug: 'e18-name', name: `Order ${TEXT}`, body: 'e18 steps' }),
        await p.skills.upsert({ slug: 'e18-body', body: `look up ${TEXT}` }),
        await p.skills.upsert({ slug: 'e18-tags', body: 'e18 steps', tags: [`o${TEXT}`] }),
      ];
      const keptSkill = await p.skills.upsert({ slug: 'e18-kept', body: 'e18 steps' });
      const memory = [
        await p.memory.write({ content: 'e18 fact one', key: `order-${TEXT}` }),
        await p.memory.write({ content: 'e18 fact two', metadata: { nested: [{ order: ORDER }] } }),
        await p.memory.write({ content: 'e18 fact three', source: `import ${TEXT}` }),
      ];
      const keptItem = await p.memory.write({ content: 'e18 kept fact', metadata: { order: 3 } });
      // Only a part's type, a slug, a scope label or a kind holds these: a purge does not search them.
      await p.memory.write({ content: 'e18 scoped', kind: 'e18-kind', scope: ['e18-label'] });
      for (const text of ['tool-call', 'e18-kind', 'e18-label', 'e18-tags']) expect(await p.purge({ matching: text, reason: 'e18 none' })).toEqual(NOTHING);
      expect(await exportText(p.log)).toContain(TEXT);

      const result = await p.purge({ matching: TEXT, reason: 'e18 order' });
      const ids = (records: readonly { id: string }[]) => records.map((r) => r.id).sort();
      expect([result.sessions, result.turns, result.skills]).toEqual([ids([titled, tagged]), ids([...held, titledTurn, taggedTurn]), ids(skills)]);
      expect(result.memory).toEqual(ids(memory));
      expect(await exportText(p.log)).not.toContain(TEXT);
      expect(await storedText(p)).not.toContain(TEXT);
      expect((await p.sessions.turns(chat.id)).map((t) => t.id)).toEqual([keptTurn.id]);
      for (const t of held) expect((await p.history(t.id)).at(-1)?.record).toMatchObject({ content: ERASED, metadata: {}, deleted: true });
      for (const s of [titled, tagged]) {
        await expectError(() => p.sessions.get(s.id), NotFoundError);
        expect(JSON.stringify(await p.history(s.id))).not.toContain(TEXT);
      }
      for (const k of skills) await expectError(() => p.skills.get(k.slug), NotFoundError);
      for (const m of memory) expect(await p.memory.getAny(m.id)).toMatchObject({ content: ERASED, source: ERASED, key: null, metadata: {}, deleted: true });
      expect([(await p.sessions.get(keptSession.id)).metadata, (await p.skills.get(keptSkill.slug)).body]).toEqual([{ order: 2 }, 'e18 steps']);
      expect((await p.memory.get(keptItem.id)).metadata).toEqual({ order: 3 });
      await expectReplayEqualsTables(p);
    }),
  'E19 a repeated purge by namespace or text reports and appends only what it erases now: a namespace purged twice erases nothing the second time, then only what was written since, and a tombstone that only reads as erased is still erased':
    freshLog(async (p) => {
      const scope = ['user:e19'];
      await p.sessions.appendTurn({ sessionId: (await p.sessions.create({ title: 'e19 chat', scope })).id, role: 'user', content: 'e19 Capybara' });
      await p.skills.upsert({ slug: 'e19-skill', body: 'e19 Capybara steps', scope });
      const item = await p.memory.write({ content: 'e19 Capybara fact', scope });
      const first = await p.purge({ namespace: scope, reason: 'e19 first' });
      expect([first.sessions.length, first.turns.length, first.skills.length, first.memory]).toEqual([1, 1, 1, [item.id]]);
      const head = await p.log.head(STATE_STREAM);
      expect([await p.purge({ namespace: scope, reason: 'e19 again' }), await p.purge({ matching: ERASED, reason: 'e19 erased' })]).toEqual([NOTHING, NOTHING]);
      expect(await p.log.head(STATE_STREAM)).toBe(head);

      const later = await p.memory.write({ content: 'e19 later fact', scope });
      // Written in the very words a purge leaves, then deleted: its first version still holds its text.
      const lookalike = await p.memory.write({ content: 'e19 Tapir fact', source: 'e19 Tapir', scope });
      await p.memory.update(lookalike.id, { content: ERASED, source: ERASED });
      await p.memory.delete(lookalike.id);
      const again = await p.purge({ namespace: scope, reason: 'e19 later' });
      expect(again).toEqual({ seq: head + 5, sessions: [], turns: [], skills: [], memory: [later.id, lookalike.id].sort() });
      expect(await storedText(p)).not.toContain('Tapir');
      await expectReplayEqualsTables(p);
    }),
  'E20 every erasedBy a purge writes reads back through the shared export reader, and the same export with a forged erasedBy is refused naming its line':
    freshLog(async (p) => {
      const chat = await p.sessions.create({ title: 'e20 chat' });
      await p.sessions.appendTurn({ sessionId: chat.id, role: 'user', content: 'e20 Narwhal-61 turn' });
      const second = await p.sessions.appendTurn({ sessionId: chat.id, role: 'assistant', content: 'e20 second turn' });
      await p.sessions.replaceSuffix(chat.id, { expected: [second.id], turns: [{ role: 'assistant', content: 'e20 another turn' }] });
      const item = await p.memory.write({ content: 'e20 fact' });
      await p.memory.update(item.id, { content: 'e20 fact, revised' });
      const kept = await p.memory.write({ content: 'e20 kept fact' });
      const gone = await p.sessions.create({ title: 'e20 gone' });
      await p.sessions.appendTurn({ sessionId: gone.id, role: 'user', content: 'e20 gone turn' });
      await p.purge({ matching: 'Narwhal-61', reason: 'e20 text' });
      await p.purge({ id: item.id, reason: 'e20 item' });
      const last = await p.purge({ id: gone.id, reason: 'e20 session' });
      const events = await p.log.read({ stream: STATE_STREAM });
      const marked = events.filter((e) => (e.payload as { erasedBy?: number }).erasedBy !== undefined);
      expect(marked.length).toBeGreaterThanOrEqual(5);
      readExport(events);
      const keptAt = events.findIndex((e) => JSON.stringify(e.payload).includes(kept.id));
      const itemAt = events.findIndex((e) => (e.payload as { erasedBy?: number }).erasedBy === last.seq - 1);
      const forgeries: Array<[number, Record<string, unknown>, number, RegExp]> = [
        [keptAt, { erasedBy: 999999 }, keptAt + 1, /is marked erased by 999999, but the log ends at seq/],
        [keptAt, { erasedBy: last.seq }, last.seq, /which purged none of its records/],
        [keptAt, { erasedBy: keptAt + 2 }, keptAt + 2, /not a records\.purged/],
        // The item's first version with its text back beside the mark of the purge that erased it.
        [itemAt, { item }, last.seq - 1, /which that purge erased, intact/],
      ];
      for (const [at, edit, line, message] of forgeries) {
        const forged = events.map((e, i) => (i === at ? { ...e, payload: { ...(e.payload as object), ...edit } } : e));
        expect(() => readExport(forged), JSON.stringify(edit)).toThrow(ExportFormatError);
        expect(() => readExport(forged), JSON.stringify(edit)).toThrow(expect.objectContaining({ line, message: expect.stringMatching(message) }));
      }
    }),
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
      const many = [{ content: 'e23 Tapir-11 one' }, { content: 'e23 two' }];
      const [first] = await p.memory.writeMany(many, { operationId: 'e23-many' });
      const kept = await p.memory.write({ content: 'e23 kept', operationId: 'e23-kept' });
      await p.purge({ matching: 'Tapir-11', reason: 'e23' });
      const head = await p.log.head(STATE_STREAM);
      await expectError(() => p.memory.write({ content: 'e23 secret Tapir-11', operationId: 'e23-memory' }), OperationConflictError);
      await expectError(() => p.memory.write({ content: 'e23 another guess', operationId: 'e23-memory' }), OperationConflictError);
      await expectError(() => p.memory.writeMany(many, { operationId: 'e23-many' }), OperationConflictError);
      expect(await p.log.head(STATE_STREAM)).toBe(head);
      expect([(await p.memory.getAny(item.id)).content, (await p.memory.getAny(first!.id)).content]).toEqual([ERASED, ERASED]);
      expect([await p.memory.write({ content: 'e23 kept', operationId: 'e23-kept' }), await p.log.head(STATE_STREAM)]).toEqual([kept, head]);
    }),
});

/** Reads `events` as an export through the shared reader, with a trailer that matches them (as a forger would recompute it). */
function readExport(events: readonly LogEvent[]): void {
  const lines = events.map(exportLine);
  const sha256 = createHash('sha256')
    .update(lines.map((line) => `${line}\n`).join(''))
    .digest('hex');
  const reader = new ExportReader();
  for (const line of [...lines, JSON.stringify({ trailer: { events: lines.length, sha256 } })]) reader.read(line);
  reader.finish();
}
