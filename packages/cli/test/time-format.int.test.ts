/**
 * One time format in every output: each instant a table, a field list or a
 * message prints is to the second and says its zone (`2026-11-29 16:54:02Z`,
 * or with `--local-time` the local offset), never the stored ISO text.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ok as okProcess, tempDir } from './helpers.js';
import { ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

/** Every date-and-time the text holds, in whatever format. */
const instants = (text: string): string[] => [...text.matchAll(/\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d)?[^\s)…]*/g)].map((m) => m[0]);

describe('times the CLI prints', () => {
  const db = tmp.path('times.db');

  it('are in one format in every command that prints one', () => {
    const item = okJson(['memory', 'write', 'Deploys go out on Tuesdays', '--expires', '2099-01-02T03:04:05.678Z', '--db', db]);
    const session = okJson(['sessions', 'create', '--title', 'chat', '--db', db]);
    ok(['sessions', 'append', session.id, '--content', 'hello', '--db', db]);
    ok(['skills', 'upsert', 'deploy', '--body', 'ship it', '--db', db]);
    const outputs: Record<string, string> = {};
    for (const args of [
      ['memory', 'show', item.id],
      ['memory', 'list'],
      ['memory', 'history', item.id],
      ['sessions', 'show', session.id],
      ['sessions', 'list'],
      ['sessions', 'history', session.id],
      ['skills', 'show', 'deploy'],
      ['stats'],
      ['diff', '--from', '1'],
      ['log', 'tail'],
    ]) {
      outputs[args.join(' ')] = ok([...args, '--db', db]);
    }
    for (const [command, text] of Object.entries(outputs)) {
      const found = instants(text);
      expect(found.length, command).toBeGreaterThan(0);
      for (const instant of found) expect(instant, command).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
    }
    expect(outputs[`memory show ${item.id}`]).toMatch(/^expires: +2099-01-02 03:04:05Z$/m);
    // Node reads TZ when the process starts: this run is a process of its own.
    const local = okProcess(['memory', 'show', item.id, '--local-time', '--db', db], { env: { TZ: 'Asia/Tokyo' } });
    for (const instant of instants(local)) expect(instant).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+09:00$/);
    expect(local).toMatch(/^expires: +2099-01-02 12:04:05\+09:00$/m);
  });
});
