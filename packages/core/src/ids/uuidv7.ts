/**
 * UUIDv7 ids (RFC 9562) that are strictly increasing per generator: within one
 * millisecond the 74 random bits are treated as a counter and incremented, and
 * when the physical clock goes back the generator keeps its last time, so id
 * order is creation order on one instance.
 */
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import type { Entropy } from './entropy.js';
import { systemEntropy } from './entropy.js';

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

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A monotonic UUIDv7 generator over an injected clock and entropy. */
export class UuidV7Generator implements IdGenerator {
  #lastMs = -1;
  /** The 10 bytes after the timestamp, version and variant bits included. */
  readonly #tail = new Uint8Array(10);

  constructor(
    private readonly clock: Clock = systemClock,
    private readonly entropy: Entropy = systemEntropy,
  ) {}

  next(): string {
    const physical = this.clock.now();
    if (physical > this.#lastMs) {
      this.#lastMs = physical;
      this.entropy(this.#tail);
      // Leave headroom in the counter so that a burst within one millisecond
      // rarely overflows into the timestamp.
      this.#tail[0] = (this.#tail[0]! & 0x07) | 0x70;
      this.#tail[2] = (this.#tail[2]! & 0x3f) | 0x80;
    } else if (!this.#increment()) {
      this.#lastMs += 1;
      this.entropy(this.#tail);
      this.#tail[0] = (this.#tail[0]! & 0x07) | 0x70;
      this.#tail[2] = (this.#tail[2]! & 0x3f) | 0x80;
    }
    return this.#format();
  }

  /** Adds one to the 74 counter bits; false when they are exhausted. */
  #increment(): boolean {
    const t = this.#tail;
    for (let i = 9; i >= 0; i -= 1) {
      if (i === 2) {
        const low = (t[2]! & 0x3f) + 1;
        if (low <= 0x3f) {
          t[2] = 0x80 | low;
          return true;
        }
        t[2] = 0x80;
        continue;
      }
      if (i === 0) {
        const low = (t[0]! & 0x0f) + 1;
        if (low <= 0x0f) {
          t[0] = 0x70 | low;
          return true;
        }
        return false;
      }
      if (t[i]! < 0xff) {
        t[i] = t[i]! + 1;
        return true;
      }
      t[i] = 0;
    }
    return false;
  }

  #format(): string {
    const ms = this.#lastMs;
    const hi = Math.floor(ms / 0x10000);
    const lo = ms % 0x10000;
    const t = this.#tail;
    const time = hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(4, '0');
    return (
      `${time.slice(0, 8)}-${time.slice(8, 12)}-${HEX[t[0]!]}${HEX[t[1]!]}-${HEX[t[2]!]}${HEX[t[3]!]}-` +
      `${HEX[t[4]!]}${HEX[t[5]!]}${HEX[t[6]!]}${HEX[t[7]!]}${HEX[t[8]!]}${HEX[t[9]!]}`
    );
  }
}
