/** Asserting typed failures precisely: the error class (`instanceof`), its stable `code`, and that the call rejected rather than threw synchronously. */
import type { AgentStateError, ErrorCode } from '@agentstate/core';
import {
  ConflictError,
  CorruptionError,
  NotFoundError,
  OperationConflictError,
  ReadOnlyViewError,
  SkillScopeRequiredError,
  UnavailableError,
  SyncConflictError,
  TokenLimitError,
  ValidationError,
} from '@agentstate/core';
import { expect } from 'vitest';

/** An error class of the taxonomy, e.g. `NotFoundError`. */
export type ErrorClass<E extends AgentStateError> = abstract new (...args: never[]) => E;

const CODES = new Map<unknown, ErrorCode>([
  [NotFoundError, 'not_found'],
  [SkillScopeRequiredError, 'not_found'],
  [ConflictError, 'conflict'],
  [OperationConflictError, 'conflict'],
  [ValidationError, 'invalid'],
  [TokenLimitError, 'invalid'],
  [CorruptionError, 'corruption'],
  [ReadOnlyViewError, 'read_only_view'],
  [UnavailableError, 'unavailable'],
  [SyncConflictError, 'diverged'],
]);

/**
 * Runs `call` and returns the error it rejected with, after checking it is an instance of `type`
 * with that class's `code`. Fails when `call` resolves or throws synchronously (store methods
 * return promises).
 */
export async function expectError<E extends AgentStateError>(call: () => Promise<unknown>, type: ErrorClass<E>, label = ''): Promise<E> {
  const prefix = label ? `${label}: ` : '';
  let promise: Promise<unknown>;
  try {
    promise = call();
  } catch (error) {
    expect.fail(`${prefix}expected a rejected promise, but the call threw synchronously: ${String(error)}`);
  }
  const error = await Promise.resolve(promise).then(
    (value) => expect.fail(`${prefix}expected ${type.name} but the call resolved with ${JSON.stringify(value)?.slice(0, 300)}`),
    (rejected: unknown) => rejected,
  );
  expect(error, `${prefix}expected ${type.name}, got ${String(error)}`).toBeInstanceOf(type);
  expect((error as AgentStateError).code, label).toBe(CODES.get(type));
  return error as E;
}

/** Runs `call` and returns the `ValidationError` it rejected with, after checking it names `field`. */
export async function expectInvalid(call: () => Promise<unknown>, field: string, label = field): Promise<ValidationError> {
  const error = await expectError(call, ValidationError, label);
  expect(error.field, label).toBe(field);
  return error;
}
