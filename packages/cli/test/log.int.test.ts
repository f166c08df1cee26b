import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, tempDir } from './helpers.js';
import { fails, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

interface Event {
  stream: string;
  seq: number;
  type: string;
  time: string;
  payload: Record<string, unknown>;
}

const jsonLines = (text: string): Event[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Event);

describe('agentstate log', () => {
  const db = tmp.path('log.db');
  let session = '';

  beforeAll(() => {
    session = ok(['sessions', 'create', '--title', 'Log test', '--db', db]).trim();
    for (let i = 1; i <= 3; i += 1) ok(['sessions', 'append', session, '--content', `turn ${i}`, '--db', db]);
    ok(['skills', 'upsert', 'deploy', '--body', 'ship it', '--db', db]);
    ok(['memory', 'write', 'a fact', '--db', db]);
  });

  it('tails the last events as lines, or JSON Lines', () => {
    const lines = ok(['log', 'tail', '-n', '2', '--db', db]).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\s+5\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+skill\.upserted\s+skill deploy v1/);
    expect(lines[1]).toMatch(/^\s+6 .*memory\.written\s+memory \S+ fact: "a fact"$/);
    const events = jsonLines(ok(['log', 'tail', '--json', '--db', db]));
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events[0]).toMatchObject({ stream: 'state', type: 'session.created', schemaVersion: 3 });
  });

  it('filters by type', () => {
    const turns = jsonLines(ok(['log', 'tail', '--type', 'session.turn_appended', '-n', '2', '--json', '--db', db]));
    expect(turns.map((e) => e.seq)).toEqual([3, 4]);
    expect(fails(1, ['log', 'tail', '--type', 'session.exploded', '--db', db])).toContain('unknown event type');
  });

  it('shows one event in full, or a seq range', () => {
    const event = JSON.parse(ok(['log', 'show', '2', '--db', db])) as Event;
    expect(event).toMatchObject({ seq: 2, type: 'session.turn_appended' });
    expect((event.payload.turn as { content: string }).content).toBe('turn 1');
    expect(jsonLines(ok(['log', 'show', '--from', '2', '--to', '4', '--json', '--db', db])).map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(jsonLines(ok(['log', 'show', '--from', '2', '--limit', '2', '--json', '--db', db])).map((e) => e.seq)).toEqual([2, 3]);
    expect(jsonLines(ok(['log', 'show', '--type', 'skill.upserted', '--json', '--db', db])).map((e) => e.seq)).toEqual([5]);
    expect(ok(['log', 'show', '--from', '50', '--db', db])).toBe('(no events in this range)\n');
    expect(fails(1, ['log', 'show', '99', '--db', db])).toContain('no event #99');
    fails(1, ['log', 'show', '0', '--db', db]);
    fails(1, ['log', 'show', '--from', '4', '--to', '2', '--db', db]);
  });

  it('follows a database written by other processes, until interrupted', async () => {
    const follower = start(['log', 'tail', '-n', '1', '--follow', '--interval', '50', '--json', '--db', db]);
    let out = '';
    follower.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    // No deadline of its own: a busy machine may take long, and the test's timeout catches a hang.
    const waitFor = async (predicate: () => boolean): Promise<void> => {
      while (!predicate()) await new Promise((r) => setTimeout(r, 50));
    };
    try {
      await waitFor(() => jsonLines(out).length === 1);
      ok(['memory', 'write', 'written while following', '--db', db]);
      ok(['sessions', 'append', session, '--content', 'turn 4', '--db', db]);
      await waitFor(() => jsonLines(out).length === 3);
      const seen = jsonLines(out);
      expect(seen.map((e) => e.seq)).toEqual([6, 7, 8]);
      expect(seen.map((e) => e.type)).toEqual(['memory.written', 'memory.written', 'session.turn_appended']);
    } finally {
      follower.kill('SIGINT');
    }
    const code = await new Promise<number | null>((resolve) => follower.on('exit', resolve));
    expect(code).toBe(0);
    expect(okJson<{ head: number }>(['stats', '--db', db]).head).toBe(8);
  });
});
