/**
 * What an acknowledged write survives, as a choice a caller can read: each
 * level names the worst failure after which every acknowledged write is
 * still in the file, and maps to one `PRAGMA synchronous` level (WAL mode).
 */
import { ValidationError } from '@agentstate/core';
import type { SynchronousLevel } from './connection.js';

/**
 * `'power-loss'` (the default, `synchronous=FULL`): every commit is fsynced
 * before it is acknowledged, so it survives a crash of the process, of the
 * operating system and a power cut. `'process-crash'` (`synchronous=NORMAL`):
 * a commit survives the process being killed (SIGKILL included), but an
 * operating system crash or power cut may take the last commits (never half
 * of one: the file stays consistent).
 */
export type Durability = 'power-loss' | 'process-crash';

/** The `PRAGMA synchronous` level of each durability. */
const SYNCHRONOUS: ReadonlyMap<string, SynchronousLevel> = new Map<Durability, SynchronousLevel>([
  ['power-loss', 'full'],
  ['process-crash', 'normal'],
]);

/**
 * The synchronous level `durability` and `synchronous` choose together:
 * either alone, or both when they agree; undefined when neither is given.
 * An unknown durability, or one that contradicts `synchronous`, is a
 * `ValidationError`.
 */
export function synchronousLevel(durability: unknown, synchronous: SynchronousLevel | undefined): SynchronousLevel | undefined {
  if (durability === undefined) return synchronous;
  const level = typeof durability === 'string' ? SYNCHRONOUS.get(durability) : undefined;
  if (level === undefined) throw new ValidationError('durability', `must be 'power-loss' or 'process-crash', not ${JSON.stringify(durability)}`);
  if (synchronous !== undefined && synchronous !== level) {
    throw new ValidationError('durability', `'${String(durability)}' means synchronous '${level}', which contradicts synchronous '${synchronous}'`);
  }
  return level;
}
