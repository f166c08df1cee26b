/**
 * What the benchmarks share: the seeded generator they draw their data from,
 * and for the write benchmarks (append.ts, batch.ts) fresh files in one
 * temporary folder and turn texts of 8–23 words, so each benchmark writes
 * the same texts in every run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const WORDS = (
  'deploy staging production rollback database migration cache redis postgres user prefers dark mode lisbon office friday ' +
  'review tests coverage latency budget alert pager incident kubernetes cluster node memory leak profile flame graph ' +
  'invoice customer billing refund quota limit token model prompt context window agent tool call retry backoff timeout'
).split(' ');

/**
 * A seeded generator of numbers in [0, 1) (a 32-bit linear congruential
 * generator): the one every benchmark draws its data from, so that the same
 * seed gives the same data in every run and every program.
 */
export function seededRandom(seed: number): () => number {
  let rng = seed;
  return () => {
    rng = (Math.imul(rng, 1103515245) + 12345) >>> 0;
    return rng / 2 ** 32;
  };
}

/** A generator of turn texts, seeded so that a benchmark's texts are the same in every run. */
export function turnTexts(seed: number): () => string {
  const random = seededRandom(seed);
  return () => Array.from({ length: 8 + Math.floor(random() * 16) }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');
}

/** A new temporary folder (`dir`) and a function naming a new database file in it at each call. */
export function freshFiles(prefix: string): { dir: string; freshFile: () => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let files = 0;
  return {
    dir,
    freshFile: () => {
      files += 1;
      return join(dir, `case-${files}.db`);
    },
  };
}
