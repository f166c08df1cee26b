/**
 * Binding a stored snapshot to the log it was taken from (docs/contract.md §8). The text
 * a codec seals is two lines: a header, then the snapshot's canonical text.
 *
 *     {"event":"<sha256>","format":"agentstate.bound-snapshot/1","log":"<id>","seq":42,"sha256":"<sha256>"}
 *     {"format":"agentstate.snapshot/5",...}
 *
 * The header records the log's identity, the seq, a digest of the event at
 * that seq and the SHA-256 of the content line. A loader trusts the content
 * only when every field agrees with the log it reads and with the content.
 * With a sealing codec the header is inside what is sealed.
 *
 * Why the event at the seq and not a running hash chain of the whole log: the
 * digest costs one read and one hash when a snapshot is saved or loaded, and
 * nothing on append. A chain would cost a hash and a stored column on every
 * append of every log implementation, and would only add detection of a log
 * whose earlier events were rewritten in place under the same identity while
 * the event at the seq stayed the same — a log that is damaged anyway (the
 * SQLite log checksums every event row, and `verify` folds the whole log).
 * The identity catches a snapshot from another store, the event digest a log
 * that was truncated and grown again differently, the content digest any
 * change of the content. Unsealed, these detect accidents and careless edits;
 * only a sealing codec makes a snapshot authentic against someone who can
 * write the file and recompute digests.
 */
import { contentHash } from '../embedding/embedder.js';
import { z } from 'zod';
import { CorruptionError } from '../errors.js';
import { STATE_STREAM } from '../log/events.js';
import { canonicalJson } from '../log/json.js';
import type { Log, LogEvent } from '../log/log.js';
import { parseSnapshotText } from './snapshot.js';

/** The format tag of the header line of a stored snapshot. */
export const BOUND_SNAPSHOT_FORMAT = 'agentstate.bound-snapshot/1';

/** A SHA-256 digest in lowercase hex. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

const headerSchema = z.strictObject({
  format: z.literal(BOUND_SNAPSHOT_FORMAT),
  /** The identity of the log it was taken from ({@link Log.identity}). */
  log: z.string().min(1),
  /** The seq of the last event folded in. */
  seq: z.number().int().nonnegative(),
  /** {@link eventDigest} of the event at `seq` (of no event at seq 0). */
  event: z.string().regex(SHA256_HEX),
  /** SHA-256 (hex) of the snapshot's canonical text. */
  sha256: z.string().regex(SHA256_HEX),
});

/** What binds a stored snapshot to its log and its content. */
export type SnapshotBinding = Omit<z.output<typeof headerSchema>, 'format'>;

/** SHA-256 of UTF-8 text, hex: the digest embeddings key their cache by, too. */
export const sha256Hex: (text: string) => string = contentHash;

/** The digest of an event as a log returns it: SHA-256 of its canonical JSON; `undefined` (seq 0) has a fixed digest. */
export function eventDigest(event: LogEvent | undefined): string {
  return sha256Hex(event === undefined ? '' : canonicalJson(event));
}

/** Reads the event at `seq` of the state stream (none at seq 0). */
export async function eventAt(log: Pick<Log, 'read'>, seq: number): Promise<LogEvent | undefined> {
  if (seq === 0) return undefined;
  const [event] = await log.read({ stream: STATE_STREAM, afterSeq: seq - 1, limit: 1 });
  return event?.seq === seq ? event : undefined;
}

/**
 * The log's identity, read once, as a getter that throws what the read
 * threw: a log without an identity fails only the snapshots whose own text
 * checks out.
 */
export async function identityOf(log: Pick<Log, 'identity'>): Promise<() => string> {
  const known = await log.identity().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return () => {
    if ('error' in known) throw known.error;
    return known.value;
  };
}

/** The binding of `content` (a snapshot's canonical text at `seq`) to `log` as it is now. */
export async function snapshotBinding(log: Log, seq: number, content: string): Promise<SnapshotBinding> {
  const event = await eventAt(log, seq);
  if (seq > 0 && !event) throw new CorruptionError(STATE_STREAM, seq, 'cannot bind a snapshot to an event the log does not hold');
  return { log: await log.identity(), seq, event: eventDigest(event), sha256: sha256Hex(content) };
}

/** The text a codec seals: the binding's header line, then the content. */
export function formatBoundSnapshot(binding: SnapshotBinding, content: string): string {
  const header = canonicalJson({ format: BOUND_SNAPSHOT_FORMAT, log: binding.log, seq: binding.seq, event: binding.event, sha256: binding.sha256 });
  return `${header}\n${content}`;
}

/**
 * Splits opened snapshot text into its binding and content, checking the
 * header's shape and the content's digest. A `CorruptionError` says why the
 * text cannot be trusted.
 */
export function parseBoundSnapshot(text: string, storedSeq: number): { binding: SnapshotBinding; content: string } {
  const newline = text.indexOf('\n');
  if (newline < 0) throw new CorruptionError(STATE_STREAM, storedSeq, 'snapshot has no binding header');
  const { format: _format, ...binding } = parseSnapshotText(text.slice(0, newline), storedSeq, headerSchema, 'snapshot binding header');
  const content = text.slice(newline + 1);
  if (sha256Hex(content) !== binding.sha256) throw new CorruptionError(STATE_STREAM, storedSeq, 'snapshot content does not match its SHA-256 digest');
  return { binding, content };
}

/**
 * Checks that `binding` belongs to a log whose identity is `identity` and
 * whose event at the binding's seq is `event`. `CorruptionError` otherwise.
 */
export function checkBinding(identity: string, binding: SnapshotBinding, event: LogEvent | undefined): void {
  if (binding.log !== identity) {
    throw new CorruptionError(STATE_STREAM, binding.seq, `snapshot was taken from another log (${binding.log}), not this one (${identity})`);
  }
  if (eventDigest(event) !== binding.event) {
    throw new CorruptionError(STATE_STREAM, binding.seq, `the event at seq ${binding.seq} is not the one the snapshot was taken after`);
  }
}
