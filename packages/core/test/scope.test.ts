/** Scope paths: the legacy rule, the parent chain, descendants, keys, the one rendering and the command-line parser. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { descendantKeyRange, scopeKey } from '../src/backend.js';
import {
  compareScopes,
  describeScope,
  GLOBAL_SCOPE,
  isDescendantScope,
  legacyScope,
  parseScopeText,
  type Scope,
  scopeChain,
  scopeInputSchema,
  toScope,
  ValidationError,
} from '../src/index.js';

const label = fc.oneof(fc.string({ minLength: 1, maxLength: 6 }), fc.constantFrom('web', 'a/b', 'x y', '"q"', '[', 'global', ',', '\u{1F600}', '\uFFFF'));
const scope: fc.Arbitrary<Scope> = fc.array(label, { maxLength: 5 });
const level = fc.oneof(fc.constant(''), fc.string({ maxLength: 6 }));

describe('the legacy rule', () => {
  it('maps each set level to `level:text`, outermost first, leaving unset levels out', () => {
    expect(legacyScope({})).toEqual([]);
    expect(legacyScope({ instance: '', project: 'web', workspace: '' })).toEqual(['project:web']);
    expect(legacyScope({ instance: 'laptop', project: 'web', workspace: 'api' })).toEqual(['instance:laptop', 'project:web', 'workspace:api']);
    expect(toScope(['workspace:api'])).toEqual(['workspace:api']);
  });

  it('keeps every old parent chain exactly', () => {
    fc.assert(
      fc.property(level, level, level, (instance, project, workspace) => {
        const old = [
          { instance, project, workspace },
          { instance, project, workspace: '' },
          { instance, project: '', workspace: '' },
          { instance: '', project: '', workspace: '' },
        ];
        const dedup = old.map((s) => legacyScope(s)).filter((s, i, all) => i === 0 || scopeKey(s) !== scopeKey(all[i - 1]!));
        expect(scopeChain(legacyScope({ instance, project, workspace }))).toEqual(dedup);
      }),
      { numRuns: 300 },
    );
  });

  it('reads only old logs: a scope input in the old object form is refused; a path is checked label by label', () => {
    expect(scopeInputSchema.safeParse({ project: 'p', workspace: 'w' }).success).toBe(false);
    expect(scopeInputSchema.parse(['a', 'b'])).toEqual(['a', 'b']);
    expect(scopeInputSchema.safeParse(['a', '']).success).toBe(false);
    expect(scopeInputSchema.safeParse(Array.from({ length: 17 }, () => 'x')).success).toBe(false);
    expect(scopeInputSchema.safeParse('a/b').success).toBe(false);
  });
});

describe('chains and descendants', () => {
  it('lists the prefixes, longest first, ending at the global scope', () => {
    expect(scopeChain(['a', 'b', 'c'])).toEqual([['a', 'b', 'c'], ['a', 'b'], ['a'], []]);
    expect(scopeChain(GLOBAL_SCOPE)).toEqual([[]]);
  });

  it('holds exactly the keys of the strict descendants in the descendant key range', () => {
    fc.assert(
      fc.property(scope, scope, (a, b) => {
        const { from, to } = descendantKeyRange(a);
        const key = scopeKey(b);
        expect(key >= from && key < to).toBe(isDescendantScope(b, a));
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(scope, scope, (a, tail) => {
        const { from, to } = descendantKeyRange(a);
        const key = scopeKey([...a, ...tail]);
        expect(key >= from && key < to).toBe(tail.length > 0);
      }),
      { numRuns: 500 },
    );
  });

  it('orders label by label, a prefix before its descendants', () => {
    const sorted = [['b'], ['a', 'z'], [], ['a'], ['\u{1F600}'], ['\uFFFF']].sort(compareScopes);
    expect(sorted).toEqual([[], ['a'], ['a', 'z'], ['b'], ['\uFFFF'], ['\u{1F600}']]);
  });
});

describe('describeScope and parseScopeText', () => {
  it('names the global scope `global`, joins plain labels with `/`, and falls back to JSON when that is ambiguous', () => {
    expect(describeScope(GLOBAL_SCOPE)).toBe('global');
    expect(describeScope(['project:web', 'workspace:api'])).toBe('project:web/workspace:api');
    expect(describeScope(['a/b', 'c'])).toBe('["a/b","c"]');
    expect(describeScope(['global'])).toBe('["global"]');
    expect(describeScope(['[x'])).toBe('["[x"]');
  });

  it('tells every two different scopes apart, and reads back what it renders', () => {
    fc.assert(
      fc.property(scope, scope, (a, b) => {
        expect(describeScope(a) === describeScope(b)).toBe(scopeKey(a) === scopeKey(b));
        if (a.length > 0) expect(parseScopeText(describeScope(a))).toEqual(a);
      }),
      { numRuns: 500 },
    );
  });

  it('parses `/` as global, slashes as labels, JSON arrays as written, and refuses empty labels and bad JSON', () => {
    expect(parseScopeText('/')).toEqual([]);
    expect(parseScopeText('a/b/c')).toEqual(['a', 'b', 'c']);
    expect(parseScopeText('["a/b","c"]')).toEqual(['a/b', 'c']);
    expect(() => parseScopeText('a//b')).toThrow(ValidationError);
    expect(() => parseScopeText('a/')).toThrow(ValidationError);
    expect(() => parseScopeText('[1]')).toThrow(ValidationError);
    expect(() => parseScopeText('[oops', 'scope')).toThrow(/scope/);
  });
});
