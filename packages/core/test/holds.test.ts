/**
 * What a record holds (docs/contract.md §7, "Purge"): a text held by any
 * string, key or number of the fields a purge erases selects the record, a
 * backend's raw scan of stored payloads never misses it, and what erasure
 * leaves holds nothing but `[erased]`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemoryItem, Part, Session, Skill, Turn } from '@agentstate/core';
import { ERASED, eraseMemoryItem, eraseSession, eraseSkill, eraseTurn } from '@agentstate/core';
import { storedTextForm } from '@agentstate/core/backend';
import { inErasedForm, jsonHolds, recordHolds } from '../src/log/holds.js';

/** Texts of every string, key and number a JSON value holds. */
function leaves(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number') return [JSON.stringify(value)];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, v]) => [key, ...leaves(v)]);
  return [];
}

/** A non-empty piece of `text`, cut between code points (a purge text has no lone surrogate). */
const pieceOf = (text: string) =>
  fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => {
    const points = Array.from(text);
    const from = a % points.length;
    return points.slice(from, from + 1 + (b % (points.length - from))).join('');
  });

/** A JSON value with at least one non-empty leaf, and a piece of one of them. */
const valueAndPiece = fc
  .jsonValue({ maxDepth: 4 })
  .filter((v) => leaves(v).some((s) => s.length > 0))
  .chain((v) => fc.constantFrom(...leaves(v).filter((s) => s.length > 0)).chain((leaf) => pieceOf(leaf).map((piece) => [v, piece] as const)));

const envelope = { syncVersion: 1, originInstanceId: 'w', updatedHlc: { wall: 1, counter: 0 }, lastWriterId: 'w', deleted: false };
const T = '2026-01-01T00:00:00.000Z';
const session = (title: string, metadata: Record<string, unknown>): Session => ({
  id: 's1',
  title,
  model: 'm',
  metadata: metadata as Session['metadata'],
  scope: ['user:1'],
  createdAt: T,
  updatedAt: T,
  ...envelope,
});
const turn = (content: string, parts: Part[], metadata: Record<string, unknown>): Turn => ({
  id: 't1',
  sessionId: 's1',
  seq: 1,
  role: 'assistant',
  content,
  parts,
  metadata: metadata as Turn['metadata'],
  createdAt: T,
  ...envelope,
});
const skill = (name: string, body: string, tags: string[]): Skill => ({
  id: 'k1',
  slug: 'deploy',
  name,
  body,
  tags,
  scope: [],
  uses: 0,
  wins: 0,
  check: '',
  version: 1,
  createdAt: T,
  updatedAt: T,
  ...envelope,
});
const item = (content: string, key: string | null, metadata: Record<string, unknown>): MemoryItem => ({
  id: 'm1',
  kind: 'fact',
  content,
  scope: [],
  source: 'user',
  key,
  metadata: metadata as MemoryItem['metadata'],
  expiresAt: null,
  createdAt: T,
  updatedAt: T,
  ...envelope,
});

const arbObject = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 });
const arbPart: fc.Arbitrary<Part> = fc.oneof(
  fc.string({ maxLength: 12 }).map((text): Part => ({ type: 'text', text })),
  fc.string({ maxLength: 12 }).map((text): Part => ({ type: 'reasoning', text })),
  fc.jsonValue({ maxDepth: 3 }).map((input): Part => ({ type: 'tool-call', callId: 'c1', toolName: 'lookup', input: input as never })),
  fc.jsonValue({ maxDepth: 3 }).map((output): Part => ({ type: 'tool-result', callId: 'c1', toolName: 'lookup', output: output as never, isError: false })),
  fc.jsonValue({ maxDepth: 3 }).map((data): Part => ({ type: 'data', name: 'cart', data: data as never })),
);
const records = fc.oneof(
  fc.tuple(fc.string({ maxLength: 12 }), arbObject).map(([title, metadata]) => ({ kind: 'session' as const, record: session(title, metadata) })),
  fc.tuple(fc.string({ maxLength: 12 }), fc.array(arbPart, { maxLength: 3 }), arbObject).map(([content, parts, metadata]) => ({
    kind: 'turn' as const,
    record: turn(content, parts, metadata),
  })),
  fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 })).map(([name, body, tags]) => ({
    kind: 'skill' as const,
    record: skill(name, body, tags),
  })),
  fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.option(fc.string({ minLength: 1, maxLength: 6 })), arbObject).map(([content, key, metadata]) => ({
    kind: 'memory' as const,
    record: item(content, key, metadata),
  })),
);

describe('what a record holds', () => {
  it('property: a JSON value holds every piece of each of its strings, keys and numbers, and its JSON holds the stored form of each', () => {
    fc.assert(
      fc.property(valueAndPiece, ([value, piece]) => {
        expect(jsonHolds(value, piece)).toBe(true);
        // The raw scan of the SQL backends looks for this form in the stored payload: it never misses a holder.
        expect(JSON.stringify(value)).toContain(storedTextForm(piece));
      }),
      { numRuns: 500 },
    );
  });

  it('property: what erasure leaves of any record holds a text only if [erased] does, and is in its erased form', () => {
    fc.assert(
      fc.property(records, fc.string({ minLength: 1, maxLength: 3 }), ({ kind, record }, text) => {
        const erased =
          kind === 'session' ? eraseSession(record) : kind === 'turn' ? eraseTurn(record) : kind === 'skill' ? eraseSkill(record) : eraseMemoryItem(record);
        expect(recordHolds(kind, erased as never, text)).toBe(ERASED.includes(text));
        expect(recordHolds(kind, erased as never, ERASED)).toBe(true);
        expect(inErasedForm(kind, erased as never)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('searches every field a purge erases, and no id, scope, slug, kind, role or part type', () => {
    const parts: Part[] = [
      { type: 'tool-call', callId: 'c1', toolName: 'lookup', input: { order: 1234 } },
      { type: 'data', name: 'cart', data: { 'sku-77': true } },
    ];
    const t = turn('', parts, { note: 'n-5' });
    for (const text of ['1234', 'order', 'sku-77', 'lookup', 'c1', 'n-5', 'note']) expect(recordHolds('turn', t, text), text).toBe(true);
    for (const text of ['tool-call', 'data', 't1', 's1', 'assistant', '"order"', 'order":1', '2026']) expect(recordHolds('turn', t, text), text).toBe(false);
    expect(recordHolds('session', session('chat 1234', {}), '1234')).toBe(true);
    expect(recordHolds('session', session('chat', { n: [1234.5] }), '234.5')).toBe(true);
    expect(recordHolds('session', session('chat', {}), 'user:1')).toBe(false);
    expect(recordHolds('skill', skill('n', 'b', ['t-9']), 't-9')).toBe(true);
    expect(recordHolds('skill', skill('n', 'b', []), 'deploy')).toBe(false);
    expect(recordHolds('memory', item('c', 'k-3', {}), 'k-3')).toBe(true);
    expect(recordHolds('memory', item('c', null, {}), 'fact')).toBe(false);
    expect(inErasedForm('memory', item('c', null, {}))).toBe(false);
  });
});
