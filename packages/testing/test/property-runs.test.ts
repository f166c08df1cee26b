/** A backend's suite that runs fewer property runs runs them in every property, also in one that asks for its own count. */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { type CheckEnv, property } from '../src/suite/harness.js';

const runsOf = async (propertyRuns: number, numRuns?: number): Promise<number> => {
  const env = { propertyRuns, seed: 1, scoped: <T>(body: () => Promise<T>) => body() } as CheckEnv;
  let runs = 0;
  const count = async () => {
    runs += 1;
  };
  await (numRuns === undefined ? property(env, fc.nat(), count) : property(env, fc.nat(), { numRuns }, count));
  return runs;
};

it("a property runs the suite's count, or its own when fewer, never more", async () => {
  expect([await runsOf(3), await runsOf(3, 15), await runsOf(20, 15)]).toEqual([3, 3, 15]);
});
