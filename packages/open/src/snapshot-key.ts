/**
 * The snapshot key: a file given (`--snapshot-key <file>`), else the file
 * named by `AGENTSTATE_SNAPSHOT_KEY`. A file holding a PEM key is Ed25519 (a private
 * key seals and verifies, a public key only verifies); any other file is an
 * HMAC-SHA256 secret (its bytes, without a final line break). The key is read
 * from a file, never from the command line, so it does not show in process
 * listings or shell history.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { SnapshotCodec } from '@agentstate/core';
import { AgentStateError, ed25519Codec, hmacCodec } from '@agentstate/core';
import { SNAPSHOT_KEY_ENV } from './defaults.js';

/** The snapshot key file cannot be read, or holds no usable key: nothing was opened. */
export class SnapshotKeyError extends AgentStateError {
  readonly code = 'invalid' as const;
}

/** The shortest HMAC secret accepted, in bytes. */
export const MIN_HMAC_SECRET_BYTES = 16;

/** A snapshot key, ready to use. */
export interface SnapshotKey {
  /** Seals and opens snapshots with the key. */
  codec: SnapshotCodec;
  /** False for an Ed25519 public key: it verifies, but cannot seal. */
  canSeal: boolean;
  /** The file it was read from. */
  path: string;
}

function ed25519(path: string, pem: string): SnapshotKey {
  let key: KeyObject;
  let privateKey: KeyObject | undefined;
  try {
    if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
      privateKey = createPrivateKey(pem);
      key = createPublicKey(privateKey);
    } else {
      key = createPublicKey(pem);
    }
  } catch (cause) {
    throw new SnapshotKeyError(`the snapshot key ${path} is not a readable PEM key (${cause instanceof Error ? cause.message : String(cause)})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new SnapshotKeyError(`the snapshot key ${path} is a ${key.asymmetricKeyType ?? 'non-asymmetric'} key; snapshots are signed with Ed25519 keys only`);
  }
  return { codec: ed25519Codec({ privateKey, publicKey: key }), canSeal: privateKey !== undefined, path };
}

/** Reads the key file: PEM is Ed25519, anything else an HMAC secret. */
export function readSnapshotKey(path: string, cwd = process.cwd()): SnapshotKey {
  let bytes: Buffer;
  try {
    bytes = readFileSync(resolve(cwd, path));
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    throw new SnapshotKeyError(`cannot read the snapshot key ${path}${code ? ` (${code})` : ''}`);
  }
  if (bytes.includes('-----BEGIN ')) return ed25519(path, bytes.toString('utf8'));
  let end = bytes.length;
  if (bytes[end - 1] === 0x0a) end -= bytes[end - 2] === 0x0d ? 2 : 1;
  const secret = bytes.subarray(0, end);
  if (secret.length < MIN_HMAC_SECRET_BYTES) {
    throw new SnapshotKeyError(`the snapshot key ${path} holds ${secret.length} bytes; an HMAC secret needs at least ${MIN_HMAC_SECRET_BYTES}`);
  }
  return { codec: hmacCodec(secret), canSeal: true, path };
}

/**
 * The snapshot key in the file `path` (a `--snapshot-key` value), else in the file {@link SNAPSHOT_KEY_ENV} names, else none.
 * A relative path is read against `cwd`; messages name it as given.
 */
export function resolveSnapshotKey(path: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): SnapshotKey | undefined {
  const chosen = path ?? (env[SNAPSHOT_KEY_ENV] || undefined);
  if (chosen === undefined) return undefined;
  if (chosen.trim() === '') throw new SnapshotKeyError('the snapshot key path is empty');
  return readSnapshotKey(chosen, cwd);
}
