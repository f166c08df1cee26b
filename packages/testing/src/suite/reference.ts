/**
 * The in-memory reference a backend is held to where the contract says "as the calls one at a time
 * would": a subject from the factory and an in-memory provider, both deterministic on equal manual
 * clocks.
 */
import { createInMemoryProvider, ManualClock, type Provider, seededEntropy, STATE_STREAM } from '@agentstate/core';
import { expect } from 'vitest';
import { isEventSourced, snapshotText, T0 } from './fixtures.js';
import type { CheckEnv } from './harness.js';

/** A subject and its reference, each with the manual clock it runs on; both are closed after the check (or the property run). */
export interface Pair {
  subject: Provider;
  reference: Provider;
  subjectClock: ManualClock;
  referenceClock: ManualClock;
}

/** The options that make two providers write the same ids, instants and HLCs. */
const deterministic = (clock: ManualClock) => ({ clock, entropy: seededEntropy(7), instanceId: 'instance-pair' });

/** A fresh subject of the factory and the in-memory reference (capabilities `deterministic` and `injectableClock`). */
export async function pair(env: CheckEnv): Promise<Pair> {
  const [subjectClock, referenceClock] = [new ManualClock(T0), new ManualClock(T0)];
  const subject = await env.open(deterministic(subjectClock));
  return { subject, reference: env.closes(createInMemoryProvider(deterministic(referenceClock))), subjectClock, referenceClock };
}

/** The events and snapshot bytes of the subject equal the reference's, when the subject has a log. */
export async function expectSameAs(subject: Provider, reference: Provider): Promise<void> {
  if (isEventSourced(subject) && isEventSourced(reference)) {
    expect(await subject.log.read({ stream: STATE_STREAM })).toEqual(await reference.log.read({ stream: STATE_STREAM }));
    expect(await snapshotText(subject)).toBe(await snapshotText(reference));
  }
}
