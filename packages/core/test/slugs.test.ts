/**
 * The slug alphabet (docs/contract.md §4): `skills.upsert` accepts exactly
 * the slugs `isSlug` accepts, and a log written before the alphabet existed,
 * with slugs outside it, still replays and its skills stay reachable.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createInMemoryProvider,
  InMemoryLog,
  isSlug,
  LIMITS,
  NotFoundError,
  replay,
  SLUG_RULE,
  STATE_STREAM,
  upsertSkillInputSchema,
  ValidationError,
} from '../src/index.js';
import { parseInput } from '../src/records/inputs.js';

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** One run of letters and digits. */
const arbRun = fc.string({ unit: fc.constantFrom(...ALNUM), minLength: 1, maxLength: 8 });
/** A slug built from the rule's grammar: runs joined by single separators. */
const arbGoodSlug = fc
  .tuple(arbRun, fc.array(fc.tuple(fc.constantFrom('-', '_', '.'), arbRun), { maxLength: 5 }))
  .map(([head, rest]) => head + rest.map(([sep, run]) => sep + run).join(''));
/** Characters near the alphabet's edges, and far from it. */
const arbChar = fc.oneof(
  fc.constantFrom(...ALNUM, '-', '_', '.', ' ', '/', 'A', 'Z', '!', 'é', '\t'),
  fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' }),
);

/** Whether `upsertSkillInputSchema` accepts `slug`. */
function accepted(slug: string): boolean {
  try {
    parseInput(upsertSkillInputSchema, { slug });
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('slug');
    return false;
  }
}

/** The rule restated without a regular expression. */
function byHand(slug: string): boolean {
  if (slug.length === 0 || slug.length > LIMITS.slug) return false;
  const separators = new Set(['-', '_', '.']);
  for (let i = 0; i < slug.length; i += 1) {
    const c = slug[i]!;
    if (ALNUM.includes(c)) continue;
    if (!separators.has(c)) return false;
    const edge = i === 0 || i === slug.length - 1;
    if (edge || separators.has(slug[i - 1]!)) return false;
  }
  return true;
}

describe('the slug alphabet', () => {
  it('accepts every slug the grammar builds', () => {
    fc.assert(fc.property(arbGoodSlug, (slug) => isSlug(slug) && accepted(slug)));
  });

  it('accepts exactly what the rule, restated by hand, accepts', () => {
    fc.assert(
      fc.property(fc.string({ unit: arbChar, maxLength: 12 }), (slug) => {
        expect(isSlug(slug)).toBe(byHand(slug));
        expect(accepted(slug)).toBe(byHand(slug));
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses a good slug with one character outside the alphabet, naming the rule', () => {
    const arbBad = fc.constantFrom(' ', '/', 'A', '!', 'é', '\u{1F600}', '%', '+');
    fc.assert(
      fc.property(arbGoodSlug, arbBad, fc.nat(), (slug, bad, at) => {
        const i = at % (slug.length + 1);
        const spoiled = slug.slice(0, i) + bad + slug.slice(i);
        expect(isSlug(spoiled)).toBe(false);
        expect(() => parseInput(upsertSkillInputSchema, { slug: spoiled })).toThrow(SLUG_RULE);
      }),
    );
  });

  it('refuses the slugs of the issue, and one over the limit', () => {
    for (const slug of ['Bad Slug!', '../..', 's'.repeat(LIMITS.slug + 1)]) expect(accepted(slug)).toBe(false);
    expect(accepted('s'.repeat(LIMITS.slug))).toBe(true);
  });

  it('leaves slugs written before it readable: replay, get, getAny, recordOutcome and delete still name them', async () => {
    const source = createInMemoryProvider();
    await source.skills.upsert({ slug: 'deploy', body: 'ship it' });
    const [event] = await source.log.read({ stream: STATE_STREAM });
    // An event as an older version wrote it, with a slug outside today's alphabet.
    const payload = structuredClone(event!.payload) as { skill: { slug: string } };
    payload.skill.slug = 'Old Slug!';
    const log = new InMemoryLog();
    await log.append({ stream: STATE_STREAM, type: event!.type, payload });

    const p = await replay(log);
    expect((await p.skills.get('Old Slug!')).body).toBe('ship it');
    expect((await p.skills.recordOutcome('Old Slug!', { success: true })).uses).toBe(1);
    expect((await p.skills.delete('Old Slug!')).deleted).toBe(true);
    expect((await p.skills.getAny('Old Slug!')).deleted).toBe(true);
    await expect(p.skills.get('Old Slug!')).rejects.toBeInstanceOf(NotFoundError);
    // It cannot be written again under that slug.
    await expect(p.skills.upsert({ slug: 'Old Slug!' })).rejects.toBeInstanceOf(ValidationError);
  });
});
