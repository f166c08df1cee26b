/**
 * The end of an export. Its last line is a trailer,
 * `{"trailer":{"events":N,"sha256":"<hex>"}}`, where N is the number of
 * event lines before it and the digest is SHA-256 over those lines, each
 * followed by one `\n`: exactly the bytes of the file before the trailer
 * (`head -n -1 export.jsonl | sha256sum`). A file cut anywhere, even at a
 * line boundary, or edited, no longer matches its trailer, and import
 * refuses it. An empty log exports as the trailer alone.
 */
import { createHash, type Hash } from 'node:crypto';
import { canonicalJson } from '../log/json.js';

/** What a trailer states about the lines before it. */
export interface Trailer {
  events: number;
  sha256: string;
}

/** The running count and digest of event lines, as written or as read. */
export class ExportDigest {
  #hash: Hash = createHash('sha256');
  #events = 0;

  /** Adds one event line (without its newline). */
  add(line: string): void {
    this.#hash.update(line, 'utf8').update('\n');
    this.#events += 1;
  }

  /** Event lines added so far. */
  get events(): number {
    return this.#events;
  }

  /** The trailer of the lines added; ends the digest. */
  finish(): Trailer {
    return { events: this.#events, sha256: this.#hash.digest('hex') };
  }
}

/** The trailer line (without its newline). */
export function trailerLine(trailer: Trailer): string {
  return canonicalJson({ trailer });
}

/** True when a parsed line is meant as a trailer (has a `trailer` key), valid or not. */
export function isTrailerValue(value: unknown): value is { trailer: unknown } {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && 'trailer' in value;
}

/** The trailer a parsed line states, or a reason it is malformed. */
export function readTrailer(value: { trailer: unknown }): Trailer | string {
  if (Object.keys(value).length !== 1) return 'a trailer line holds only "trailer"';
  const t = value.trailer;
  if (t === null || typeof t !== 'object' || Array.isArray(t)) return '"trailer" must be an object';
  const keys = Object.keys(t).sort();
  if (keys.length !== 2 || keys[0] !== 'events' || keys[1] !== 'sha256') return '"trailer" must hold exactly "events" and "sha256"';
  const { events, sha256 } = t as Record<string, unknown>;
  if (!Number.isSafeInteger(events) || (events as number) < 0) return '"trailer.events" must be a non-negative integer';
  if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) return '"trailer.sha256" must be 64 lowercase hex digits';
  return { events: events as number, sha256 };
}
