/**
 * The stand-ins of the command tree show, before anything is loaded, what
 * the real commands would: the same summary and the same term in the list
 * of commands (`import [options] <file>`), in the same order.
 */
import { Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { LAZY_COMMANDS, SUMMARIES } from '../src/command-list.js';
import { createProgram } from '../src/program.js';

describe('the commands loaded on demand', () => {
  it('are listed with the summary and term of the real command', async () => {
    const help = new Help();
    for (const entry of LAZY_COMMANDS) {
      const real = await entry.load();
      expect(real.name()).toBe(entry.name);
      expect(real.description()).toBe(SUMMARIES[entry.name]);
      expect(entry.term).toBe(help.subcommandTerm(real));
    }
  });

  it('are every command with a summary, each once, listed in the order of the help', () => {
    expect(LAZY_COMMANDS.map((e) => e.name)).toEqual(Object.keys(SUMMARIES));
    const listed = createProgram()
      .commands.map((c) => c.name())
      .filter((name) => name in SUMMARIES);
    expect(listed).toEqual(Object.keys(SUMMARIES));
  });
});
