import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryId, skillId } from '../src/index.js';

describe('skillId and memoryId', () => {
  it('is a fixed UUIDv8 of scope and slug, so every store and every version of the library derives the same', () => {
    expect(skillId([], 'deploy')).toBe(skillId([], 'deploy'));
    expect(skillId(['team'], 'deploy')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(skillId(['team'], 'deploy')).toBe('f01d8091-9282-88cc-9ab7-d874f539f989');
  });

  it('differs for every other scope or slug: labels and slugs are encoded apart', () => {
    const key = fc.tuple(fc.array(fc.string(), { maxLength: 3 }), fc.string());
    fc.assert(
      fc.property(key, key, ([scopeA, slugA], [scopeB, slugB]) => {
        const same = JSON.stringify([scopeA, slugA]) === JSON.stringify([scopeB, slugB]);
        expect(skillId(scopeA, slugA) === skillId(scopeB, slugB)).toBe(same);
      }),
    );
    expect(skillId(['a,b'], 'c')).not.toBe(skillId(['a', 'b'], 'c'));
    expect(skillId(['a'], 'b')).not.toBe(skillId([], 'a/b'));
  });

  it("derives a memory key's id apart from a slug's: a skill and an item of one scope and name never share an id", () => {
    expect(memoryId(['team'], 'deploy')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(memoryId(['team'], 'deploy')).not.toBe(skillId(['team'], 'deploy'));
    expect(memoryId(['team'], 'deploy')).toBe('58971091-2aa5-88de-94c5-f5befb100a0d');
  });
});
