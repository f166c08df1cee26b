/** The suite itself: every numbered check exists once, capabilities resolve as documented. */
import { describe, expect, it } from 'vitest';
import type { ProviderFactory } from '@agentstate/testing';
import { listLogChecks, listProviderChecks, resolveCapabilities } from '@agentstate/testing';

const numbers = (names: string[]): string[] => names.map((n) => /^([ABPX]\d+) /.exec(n)?.[1] ?? `unnumbered: ${n}`);

describe('the check catalogue', () => {
  it('has one provider check for each of A1–A28, B30–B40 and P1–P5, in order, then the extra checks', () => {
    const got = numbers(listProviderChecks().map((c) => c.name));
    const wanted = [
      ...Array.from({ length: 28 }, (_, i) => `A${i + 1}`),
      ...Array.from({ length: 11 }, (_, i) => `B${i + 30}`),
      ...Array.from({ length: 5 }, (_, i) => `P${i + 1}`),
      ...Array.from({ length: 17 }, (_, i) => `X${i + 1}`),
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
    for (const n of ['A27', 'A28', 'B30', 'B40', 'X11', 'X16', 'X17']) expect(needs.get(n), n).toEqual(['eventSourced']);
    expect(needs.get('B31')).toEqual(['eventSourced', 'snapshotCodec']);
    for (const n of ['B32', 'X12']) expect(needs.get(n), n).toEqual(['deterministic', 'injectableClock']);
    for (const n of ['B33', 'B39', 'X10', 'X15']) expect(needs.get(n), n).toEqual(['injectableClock']);
    expect(needs.get('X14')).toEqual(['deterministic']);
    const free = [...needs].filter(([, list]) => list.length === 0).map(([n]) => n);
    expect(free).toContain('B37');
    expect(free).toContain('A26');
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
    });
    expect(resolveCapabilities(base, false)).toMatchObject({ eventSourced: false, snapshotCodec: false });
    expect(resolveCapabilities({ ...base, reopen: async (p) => p }, true).durable).toBe(true);
    expect(resolveCapabilities({ ...base, openShared: async (p) => p }, true).sharedStorage).toBe(true);
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
    });
    expect(resolveCapabilities({ ...base, capabilities: { snapshotCodec: false } }, true).snapshotCodec).toBe(false);
  });
});
