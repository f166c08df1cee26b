/** The suite itself: every numbered check exists once, capabilities resolve as documented. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProviderFactory } from '@agentstate/testing';
import { listLogChecks, listProviderChecks, resolveCapabilities } from '@agentstate/testing';

const numbers = (names: string[]): string[] => names.map((n) => /^([A-Z]\d+) /.exec(n)?.[1] ?? `unnumbered: ${n}`);

describe('the check catalogue', () => {
  it('has one provider check for each of A1–A28, B30–B43, C1–C9, E1–E22, G1–G10, I1–I8, M1–M8, N1–N5, P1–P7, Q1–Q2, R1–R6, S1–S8, T1–T9, V1–V9, W1–W15, W20–W27, W30, W31 and W40, in order, then the extra checks X1–X27 and the sync checks Y1–Y20, Y23, Y30–Y33, Y40–Y43, Y50–Y58, Y60, Y61, Y65, Y66, Y70–Y72, Y80, Y81–Y86, Y88 and Y91–Y93', () => {
    const got = numbers(listProviderChecks().map((c) => c.name));
    const wanted = [
      ...Array.from({ length: 28 }, (_, i) => `A${i + 1}`),
      ...Array.from({ length: 14 }, (_, i) => `B${i + 30}`),
      ...Array.from({ length: 9 }, (_, i) => `C${i + 1}`),
      ...Array.from({ length: 22 }, (_, i) => `E${i + 1}`),
      ...Array.from({ length: 10 }, (_, i) => `G${i + 1}`),
      ...Array.from({ length: 8 }, (_, i) => `I${i + 1}`),
      ...Array.from({ length: 8 }, (_, i) => `M${i + 1}`),
      ...Array.from({ length: 5 }, (_, i) => `N${i + 1}`),
      ...Array.from({ length: 7 }, (_, i) => `P${i + 1}`),
      ...Array.from({ length: 2 }, (_, i) => `Q${i + 1}`),
      ...Array.from({ length: 6 }, (_, i) => `R${i + 1}`),
      ...Array.from({ length: 8 }, (_, i) => `S${i + 1}`),
      ...Array.from({ length: 9 }, (_, i) => `T${i + 1}`),
      ...Array.from({ length: 9 }, (_, i) => `V${i + 1}`),
      ...Array.from({ length: 15 }, (_, i) => `W${i + 1}`),
      ...Array.from({ length: 8 }, (_, i) => `W${i + 20}`),
      'W30',
      'W31',
      'W40',
      ...Array.from({ length: 27 }, (_, i) => `X${i + 1}`),
      ...Array.from({ length: 20 }, (_, i) => `Y${i + 1}`),
      'Y23',
      ...Array.from({ length: 4 }, (_, i) => `Y${i + 30}`),
      ...Array.from({ length: 4 }, (_, i) => `Y${i + 40}`),
      ...Array.from({ length: 9 }, (_, i) => `Y${i + 50}`),
      'Y60',
      'Y61',
      'Y65',
      'Y66',
      ...Array.from({ length: 3 }, (_, i) => `Y${i + 70}`),
      'Y80',
      'Y81',
      'Y82',
      'Y83',
      'Y84',
      'Y85',
      'Y86',
      'Y88',
      'Y91',
      'Y92',
      'Y93',
    ];
    expect(got).toEqual(wanted);
  });

  it('has only A29 checks for the log, each with a distinct name', () => {
    const names = listLogChecks().map((c) => c.name);
    expect(new Set(numbers(names))).toEqual(new Set(['A29']));
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(8);
  });

  it('declares what each capability-bound check needs', () => {
    const needs = new Map(listProviderChecks().map((c) => [numbers([c.name])[0], c.needs]));
    for (const n of [
      'A27',
      'A28',
      'B30',
      'B40',
      'E1',
      'E6',
      'E18',
      'E19',
      'E20',
      'E21',
      'E22',
      'G7',
      'G9',
      'G10',
      'I1',
      'I6',
      'I7',
      'T8',
      'V9',
      'X11',
      'X16',
      'X17',
      'X25',
      'X27',
    ])
      expect(needs.get(n), n).toEqual(['eventSourced']);
    for (const n of ['W30', 'Y1', 'Y2', 'Y3', 'Y5', 'Y7', 'Y8', 'Y18', 'Y23', 'Y30', 'Y31', 'Y32', 'Y33'])
      expect(needs.get(n), n).toEqual(['eventSourced', 'sync']);
    for (const n of ['Y4', 'Y6', 'Y50', 'Y51']) expect(needs.get(n), n).toEqual(['eventSourced', 'sync', 'injectableClock']);
    expect(needs.get('E7')).toEqual(['eventSourced', 'injectableClock']);
    expect(needs.get('E9')).toEqual(['eventSourced', 'injectableClock']);
    expect(needs.get('E11')).toEqual(['eventSourced', 'injectableClock']);
    expect(needs.get('E17')).toEqual(['eventSourced', 'injectableClock']);

    expect(needs.get('B31')).toEqual(['eventSourced', 'snapshotCodec']);
    expect(needs.get('C5')).toEqual(['durable']);
    expect(needs.get('C6')).toEqual(['eventSourced']);
    for (const n of ['B32', 'X12', 'G1', 'G3', 'G6']) expect(needs.get(n), n).toEqual(['deterministic', 'injectableClock']);
    for (const n of ['B33', 'B39', 'X10', 'X15', 'X19']) expect(needs.get(n), n).toEqual(['injectableClock']);
    expect(needs.get('X14')).toEqual(['deterministic']);
    for (const n of ['S6', 'S8', 'X20', 'X23', 'X24']) expect(needs.get(n), n).toEqual(['embedder']);
    const free = [...needs].filter(([, list]) => list.length === 0).map(([n]) => n);
    expect(free).toContain('B37');
    expect(free).toContain('I4');
    expect(free).toContain('A26');
  });
});

/**
 * The checks a capability table's row names as needing it: its last cell up to the first `;` (what follows is a note),
 * ranges expanded; `—` names none, and a row naming none is left out (no check declares it).
 */
function documentedNeeds(doc: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const [, capability, cell] of doc.matchAll(/^\| `(\w+)` \|.*\| ([^|]*) \|$/gm)) {
    const listed = cell!
      .split(';')[0]!
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '—');
    if (listed.length === 0) continue;
    rows.set(
      capability!,
      listed.flatMap((item) => {
        const range = /^([A-Z])(\d+)–[A-Z](\d+)$/.exec(item);
        if (!range) return [item];
        return Array.from({ length: Number(range[3]) - Number(range[2]) + 1 }, (_, i) => `${range[1]}${Number(range[2]) + i}`);
      }),
    );
  }
  return rows;
}

describe('the capability tables', () => {
  const declared = new Map<string, string[]>();
  for (const check of listProviderChecks())
    for (const capability of check.needs) declared.set(capability, [...(declared.get(capability) ?? []), numbers([check.name])[0]!]);
  const root = join(import.meta.dirname, '..', '..', '..');
  for (const doc of ['docs/conformance.md', 'packages/testing/README.md'])
    it(`of ${doc} name, for each capability, exactly the checks that declare it`, () => {
      expect(Object.fromEntries(documentedNeeds(readFileSync(join(root, doc), 'utf8')))).toEqual(Object.fromEntries(declared));
    });
});

describe('resolveCapabilities', () => {
  const base: ProviderFactory = { name: 'f', create: async () => Promise.reject(new Error('unused')) };

  it('derives everything from the factory and the probe when nothing is declared', () => {
    expect(resolveCapabilities(base, true)).toEqual({
      eventSourced: true,
      durable: false,
      sharedStorage: false,
      injectableClock: true,
      deterministic: true,
      snapshotCodec: true,
      embedder: true,
      commitFault: false,
      otherProcess: false,
      sync: true,
    });
    expect(resolveCapabilities(base, false)).toMatchObject({ eventSourced: false, snapshotCodec: false, sync: false });
    expect(resolveCapabilities({ ...base, reopen: async (p) => p }, true).durable).toBe(true);
    expect(resolveCapabilities({ ...base, openShared: async (p) => p }, true).sharedStorage).toBe(true);
    expect(resolveCapabilities({ ...base, failCommits: async () => async () => undefined }, true).commitFault).toBe(true);
    const target = { module: 'm', open: 'open', args: [] };
    expect(resolveCapabilities({ ...base, processTarget: async () => target }, true).otherProcess).toBe(true);
  });

  it('lets declared flags win over the probe', () => {
    const declared = { ...base, capabilities: { eventSourced: false, injectableClock: false, deterministic: false, durable: false, sharedStorage: false } };
    expect(resolveCapabilities({ ...declared, reopen: async (p) => p, openShared: async (p) => p }, true)).toEqual({
      eventSourced: false,
      durable: false,
      sharedStorage: false,
      injectableClock: false,
      deterministic: false,
      snapshotCodec: false,
      embedder: true,
      commitFault: false,
      otherProcess: false,
      sync: false,
    });
    expect(resolveCapabilities({ ...base, capabilities: { snapshotCodec: false } }, true).snapshotCodec).toBe(false);
    expect(resolveCapabilities({ ...base, capabilities: { sync: false } }, true).sync).toBe(false);
  });
});
