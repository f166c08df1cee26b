/**
 * Parsing of flag values and of text read from files or stdin. Every
 * mistake is a {@link UserError} (a scope's, core's `ValidationError`) naming
 * the flag, raised before anything is opened or written.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import type { ScopeInput } from '@agentstate/core';
import { parseScopeText } from '@agentstate/core';
import { UserError } from './errors.js';
import { inCwd, readStdin } from './io.js';

/** A commander parser for a non-negative integer flag. */
export function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a non-negative integer.');
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('the number is too large.');
  return n;
}

/** A commander parser for a positive integer flag: text and 0 get the same message, which names what is wanted. */
export function positiveInt(value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : 0;
  if (n === 0) throw new InvalidArgumentError('expected a positive integer.');
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('the number is too large.');
  return n;
}

/** A commander parser for a number in [0, 1]. */
export function unitInterval(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number between 0 and 1.');
  return n;
}

/** A commander parser for one of `choices`. */
export function oneOf<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(choices as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${choices.join(', ')}.`);
    return value as T;
  };
}

/** A commander collector for a repeatable flag. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The flag of a write command (docs/contract.md §4, idempotent writes). */
export interface OperationFlags {
  operationId?: string;
}

/** The scope flag every scoped command accepts. */
export interface ScopeFlags {
  scope?: string;
}

/**
 * The scope `--scope` names as {@link parseScopeText} reads it (`a/b`,
 * `["a/b","c"]`, `/` for global), or undefined when it was not given; a bad
 * one is its `ValidationError`, naming the flag.
 */
export function scopeFrom(flags: ScopeFlags, flag = '--scope'): ScopeInput | undefined {
  return flags.scope === undefined ? undefined : parseScopeText(flags.scope, flag);
}

/** The scope flags of a read that may reach past its scope, where the command has them. */
export interface ScopeReadFlags extends ScopeFlags {
  parents?: boolean;
  descendants?: boolean;
}

/** A read's scope options: the scope `--scope` names and, only with it, the `--parents` and `--descendants` given. */
export function scopeRead({ parents, descendants, ...flags }: ScopeReadFlags): {
  scope?: ScopeInput;
  includeParentScopes?: boolean;
  includeDescendants?: boolean;
} {
  const scope = scopeFrom(flags);
  if (scope === undefined) return { scope };
  return { scope, ...(parents !== undefined && { includeParentScopes: parents }), ...(descendants !== undefined && { includeDescendants: descendants }) };
}

/** Reads a whole text file, or stdin for `-`. */
export async function readText(path: string): Promise<string> {
  try {
    return path === '-' ? await readStdin() : readFileSync(inCwd(path), 'utf8');
  } catch (error) {
    throw new UserError(`cannot read ${path === '-' ? 'stdin' : path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Parses JSON text that must hold an object, naming where it came from in the error. */
export function parseJsonObject(text: string, where: string): Record<string, unknown> {
  const value = parseJson(text, where);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UserError(`${where} must hold a JSON object`);
  return value as Record<string, unknown>;
}

/** Exactly one of an inline text flag and a file flag. */
export async function textFromFlags(inline: string | undefined, file: string | undefined, what: string): Promise<string> {
  if (inline !== undefined && file !== undefined) throw new UserError(`give the ${what} inline or from a file, not both`);
  if (file !== undefined) return readText(file);
  if (inline !== undefined) return inline;
  throw new UserError(`the ${what} is missing`);
}

/** Parses JSON text naming where it came from in the error; any JSON value. */
export function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UserError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
}
