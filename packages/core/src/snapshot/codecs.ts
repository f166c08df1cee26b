/**
 * Snapshot codecs seal a snapshot before it is stored and open (verify) it
 * before it is trusted, so a tampered snapshot is skipped rather than folded.
 */
import { createHmac, sign, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { AgentStateError } from '../errors.js';

/** Seals and opens snapshot text. `open` throws when the text is not authentic. */
export interface SnapshotCodec {
  /** Identifies the codec in sealed text, e.g. `hmac-sha256`. */
  readonly id: string;
  seal(text: string): string;
  open(sealed: string): string;
}

/**
 * Raised by a codec that cannot seal (no private key, an empty secret) or
 * refuses sealed text (another key, changed since, another codec).
 */
export class SnapshotSealError extends AgentStateError {
  readonly code = 'seal_failed' as const;
}

function split(sealed: string, id: string): { tag: Buffer; body: string } {
  const prefix = `${id}:`;
  if (!sealed.startsWith(prefix)) throw new SnapshotSealError(`not sealed with ${id}`);
  const dot = sealed.indexOf('.', prefix.length);
  if (dot < 0) throw new SnapshotSealError('sealed text has no tag separator');
  return { tag: Buffer.from(sealed.slice(prefix.length, dot), 'base64url'), body: sealed.slice(dot + 1) };
}

/** Stores snapshot text as it is: integrity only from the snapshot's own validation. */
export const plainCodec: SnapshotCodec = {
  id: 'plain',
  seal: (text) => text,
  open: (sealed) => sealed,
};

/** HMAC-SHA256 with a shared secret: `hmac-sha256:<mac>.<text>`. */
export function hmacCodec(secret: string | Buffer): SnapshotCodec {
  if (secret.length === 0) throw new SnapshotSealError('the HMAC secret must not be empty');
  const id = 'hmac-sha256';
  const mac = (body: string): Buffer => createHmac('sha256', secret).update(body, 'utf8').digest();
  return {
    id,
    seal: (text) => `${id}:${mac(text).toString('base64url')}.${text}`,
    open: (sealed) => {
      const { tag, body } = split(sealed, id);
      const expected = mac(body);
      if (tag.length !== expected.length || !timingSafeEqual(tag, expected))
        throw new SnapshotSealError('HMAC mismatch: sealed with another key, or changed since');
      return body;
    },
  };
}

/**
 * Ed25519 signatures: `ed25519:<signature>.<text>`. Give the private key to
 * seal; the public key alone is enough to open (verify).
 */
export function ed25519Codec(keys: { privateKey?: KeyObject; publicKey: KeyObject }): SnapshotCodec {
  const id = 'ed25519';
  return {
    id,
    seal: (text) => {
      if (!keys.privateKey) throw new SnapshotSealError('sealing needs the private key');
      return `${id}:${sign(null, Buffer.from(text, 'utf8'), keys.privateKey).toString('base64url')}.${text}`;
    },
    open: (sealed) => {
      const { tag, body } = split(sealed, id);
      if (!verify(null, Buffer.from(body, 'utf8'), keys.publicKey, tag))
        throw new SnapshotSealError('Ed25519 signature mismatch: signed with another key, or changed since');
      return body;
    },
  };
}
