/**
 * Runs examples/langgraph/agent.ts as its README says, and checks the file it
 * leaves with the `agentstate` command.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'agentstate-example-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('examples/langgraph', () => {
  it('pauses, resumes from the file, calls the model with the context window, remembers, and leaves a file that verifies', () => {
    const db = join(dir, 'agent.db');
    const out = execFileSync(process.execPath, ['--import', import.meta.resolve('tsx'), 'examples/langgraph/agent.ts', db], {
      cwd: root,
      encoding: 'utf8',
      timeout: HANG_GUARD_MS,
    });
    expect(out.split('\n').filter(Boolean)).toEqual([
      "paused before: [ 'tools' ]",
      'answer: No umbrella: Lisbon is sunny, 21 °C.',
      "remembered: { text: 'No umbrella: Lisbon is sunny, 21 °C.' }",
      'checkpoints: 6',
      // The model's last call, on the mirrored session's context: the working memory, then the thread's turns.
      '> system: Working memory:',
      'Ada cycles everywhere and hates carrying things.',
      '> human: Shall I pack an umbrella for Lisbon?',
      '> ai: weather({"city":"Lisbon"})',
      '> tool: Lisbon: 21 °C and sunny',
    ]);
    const verify = execFileSync(process.execPath, [join(root, 'packages/cli/bin/agentstate.js'), 'verify', '--db', db], {
      encoding: 'utf8',
      timeout: HANG_GUARD_MS,
    });
    expect(verify).toMatch(/^ok: /);
  });
});
