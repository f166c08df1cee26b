/**
 * Binding a stored snapshot to the log it was taken from (docs/contract.md §8):
 * a header line (the log's identity, the seq, a digest of the event at that
 * seq, the SHA-256 of the content), then the content line. The digest of one
 * event costs a read and a hash per save or load and nothing per append,
 * where a running hash chain would cost a hash and a column on every append
 * and add only the detection of a log rewritten in place (which the row
 * checksums and `verify` catch).
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
