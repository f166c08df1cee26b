/**
 * UUIDv7 ids (RFC 9562) that are strictly increasing per generator: within one
 * millisecond the 74 random bits are treated as a counter and incremented, and
 * when the physical clock goes back the generator keeps its last time, so id
 * order is creation order on one instance.
 */
import { type Clock, systemClock } from '../time/clock.js';
import { type Entropy, systemEntropy } from './entropy.js';

/** Produces ids. */
export interface IdGenerator {
  /** A new id, greater (as a string) than every id this generator made before. */
  next(): string;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** True for a lower-case UUIDv7 string. */
export function isUuidV7(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** Unix milliseconds embedded in a UUIDv7. */
export function uuidV7Time(id: string): number {
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/** The character codes of the hex digits 0–f. */
const HEX_CODES = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const DASH = '-'.charCodeAt(0);
/** The characters after the time part: 20 hex digits and two dashes. */
const TAIL_CHARS = 22;

/** The counter bits of each tail byte: all but the version's nibble (byte 0) and the variant's two bits (byte 2). */
const COUNTER_BITS = [0x0f, 0xff, 0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];

/** A monotonic UUIDv7 generator over an injected clock and entropy. */
export class UuidV7Generator implements IdGenerator {
  #lastMs = -1;
  /** The 10 bytes after the timestamp, version and variant bits included. */
  readonly #tail = new Uint8Array(10);
  /** The id as text: the time part (written when the millisecond changes) from 0, the tail's digits after it. */
  #text = Buffer.alloc(14 + TAIL_CHARS);
  /** Where the tail's digits start in {@link #text}. */
  #tailAt = 0;
  /** The millisecond whose time part {@link #text} holds. */
  #textMs = Number.NaN;

  constructor(
    private readonly clock: Clock = systemClock,
    private readonly entropy: Entropy = systemEntropy,
  ) {}

  next(): string {
    const physical = this.clock.now();
    const ahead = physical > this.#lastMs;
    // A new millisecond, or a counter that overflowed within this one (then the next millisecond is borrowed).
    if (ahead || !this.#increment()) {
      this.#lastMs = ahead ? physical : this.#lastMs + 1;
      this.entropy(this.#tail);
      // Leave headroom in the counter so that a burst within one millisecond
      // rarely overflows into the timestamp.
      this.#tail[0] = (this.#tail[0]! & 0x07) | 0x70;
      this.#tail[2] = (this.#tail[2]! & 0x3f) | 0x80;
    }
    return this.#format();
  }

  /** Adds one to the 74 counter bits; false when they are exhausted. */
  #increment(): boolean {
    const t = this.#tail;
    for (let i = 9; i >= 0; i -= 1) {
      const mask = COUNTER_BITS[i]!;
      if ((t[i]! & mask) < mask) {
        t[i] = t[i]! + 1;
        return true;
      }
      t[i] = t[i]! & ~mask;
    }
    return false;
  }

  #format(): string {
    const ms = this.#lastMs;
    if (ms !== this.#textMs) {
      const hi = Math.floor(ms / 0x10000);
      const lo = ms % 0x10000;
      const time = hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(4, '0');
      const prefix = `${time.slice(0, 8)}-${time.slice(8, 12)}-`;
      // 14 characters for any real clock; a clock far outside the UUID range gives a longer, equally kept, prefix.
      if (prefix.length + TAIL_CHARS > this.#text.length) this.#text = Buffer.alloc(prefix.length + TAIL_CHARS);
      this.#tailAt = this.#text.write(prefix, 0, 'latin1');
      this.#textMs = ms;
    }
    const t = this.#tail;
    const text = this.#text;
    let at = this.#tailAt;
    for (let i = 0; i < 10; i += 1) {
      if (i === 2 || i === 4) text[at++] = DASH;
      text[at++] = HEX_CODES[t[i]! >> 4]!;
      text[at++] = HEX_CODES[t[i]! & 0xf]!;
    }
    // One flat string from bytes: a template of twenty pieces is a tree of cons strings, which every map keyed by
    // the id must flatten (a copy) before hashing it.
    return text.toString('latin1', 0, at);
  }
}
