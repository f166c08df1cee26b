import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldForIndex, matchesText } from '../src/backend.js';
import { matchesTokens, queryTokens, tokenize } from '../src/matching/lexical.js';

describe('lexical matching (docs/contract.md §5)', () => {
  it('splits on anything but letters and digits, folding case and diacritics', () => {
    expect(tokenize('Jürgen paired on São-Paulo’s DB, v2!')).toEqual(['jurgen', 'paired', 'on', 'sao', 'paulo', 's', 'db', 'v2']);
    expect(tokenize('ÉCOLE crème Ångström')).toEqual(['ecole', 'creme', 'angstrom']);
    expect(foldForIndex('  Hello,   WORLD ')).toBe('hello world');
  });

  it('requires every query token as a prefix of some record token', () => {
    expect(matchesText('dep prod', 'Deploy to production')).toBe(true);
    expect(matchesText('deploy staging', 'Deploy to production')).toBe(false);
    expect(matchesText('ploy', 'Deploy')).toBe(false);
    expect(matchesText('cafe', 'Café au lait')).toBe(true);
  });

  it('matches everything on an empty query and nothing on a punctuation-only one', () => {
    expect(queryTokens(undefined)).toEqual([]);
    expect(queryTokens('   ')).toEqual([]);
    expect(queryTokens('"*()')).toBeNull();
    expect(matchesText('', 'anything')).toBe(true);
    expect(matchesText('?!', 'anything')).toBe(false);
  });

  it('treats query syntax as plain text', () => {
    for (const q of ['"', '*', '(', ')', ':', '^', '-', 'NEAR', 'OR', 'AND', 'NOT', "'", '%', '_', ';--']) {
      expect(() => queryTokens(q)).not.toThrow();
    }
    expect(matchesText('NOT', 'not today')).toBe(true);
    expect(matchesText('a OR b', 'a alone')).toBe(false);
  });

  it('always matches a query made of prefixes of the record’s own tokens', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.nat(), (text, pick) => {
        const tokens = tokenize(text);
        fc.pre(tokens.length > 0);
        const token = tokens[pick % tokens.length]!;
        const prefix = token.slice(0, 1 + (pick % token.length));
        expect(matchesTokens(queryTokens(prefix) ?? [], tokens)).toBe(true);
      }),
    );
  });

  it('is idempotent: folding folded text changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (text) => {
        expect(tokenize(foldForIndex(text))).toEqual(tokenize(text));
      }),
    );
  });
});
