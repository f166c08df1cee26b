/**
 * Tests import a package's sources by path (`../src/…`) and the other
 * packages by name; both load the one built module (tools/built-packages.ts),
 * so an error thrown by another package is an instance of the class a test
 * imported from the sources.
 */
import { AgentStateError as Built } from '@agentstate/core';
import { describe, expect, it } from 'vitest';
import { AgentStateError } from '../src/errors.js';

describe("a test's import of its package's sources", () => {
  it('loads the module the other packages load', () => {
    expect(AgentStateError).toBe(Built);
  });
});
