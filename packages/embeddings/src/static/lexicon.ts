/**
 * A read-only word → row index over one string of `\n`-joined words, built
 * in a few milliseconds and without one string object per word (a `Map` of
 * 130,000 words takes ~100 ms and several MB more to build).
 */
import { TableFormatError } from '../errors.js';
import { fnv1a } from './hash.js';

/** Open-addressing hash index of the words in `joined`. */
export class Lexicon {
  readonly #joined: string;
  /** Start offset of each word in `#joined`, plus one past the end (as if followed by `\n`). */
  readonly #starts: Uint32Array;
  /** Row + 1 per slot; 0 = empty. */
  readonly #slots: Int32Array;
  readonly #mask: number;

  /**
   * `joined`: the words, in row order, separated by single `\n`; words must
   * be distinct. Throws a {@link TableFormatError} when it does not hold `count` words.
   */
  constructor(joined: string, count: number) {
    this.#joined = joined;
    const starts = new Uint32Array(count + 1);
    let row = 1;
    for (let i = 0; i < joined.length; i += 1) {
      if (joined.charCodeAt(i) !== 10) continue;
      if (row >= count) throw new TableFormatError(`more than ${count} words`);
      starts[row++] = i + 1;
    }
    if (count === 0 ? joined !== '' : row !== count) throw new TableFormatError(`${row} words, expected ${count}`);
    starts[count] = joined.length + 1;
    this.#starts = starts;
    let size = 16;
    while (size < count * 2) size *= 2;
    this.#mask = size - 1;
    this.#slots = new Int32Array(size);
    for (let r = 0; r < count; r += 1) {
      let slot = fnv1a(joined, starts[r]!, starts[r + 1]! - 1) & this.#mask;
      while (this.#slots[slot] !== 0) slot = (slot + 1) & this.#mask;
      this.#slots[slot] = r + 1;
    }
  }

  /** Number of words. */
  get size(): number {
    return this.#starts.length - 1;
  }

  /** The row of `word`, or `undefined`. */
  get(word: string): number | undefined {
    let slot = fnv1a(word) & this.#mask;
    for (;;) {
      const entry = this.#slots[slot]!;
      if (entry === 0) return undefined;
      const row = entry - 1;
      const start = this.#starts[row]!;
      if (this.#starts[row + 1]! - 1 - start === word.length && this.#joined.startsWith(word, start)) return row;
      slot = (slot + 1) & this.#mask;
    }
  }

  /** The word at `row`. */
  word(row: number): string {
    return this.#joined.slice(this.#starts[row]!, this.#starts[row + 1]! - 1);
  }
}
