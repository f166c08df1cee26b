/**
 * Builds a realistic `state` stream of `n` events quickly, in memory, with
 * a manual clock and seeded ids: sessions with transcripts, skills with
 * updates and outcomes, memory items, and deletions of each kind.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { LogEvent } from '@agentstate/core';
import { ManualClock, STATE_STREAM, createInMemoryProvider, seededEntropy, canonicalJson } from '@agentstate/core';
import { openSqlite, openSqliteLog } from '@agentstate/sqlite';

const WORDS = ['deploy', 'staging', 'rollback', 'migration', 'database', 'editor', 'theme', 'release', 'cache', 'latency', 'tests', 'review'];

function sentence(i: number): string {
  return `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} note ${i}: ${WORDS[(i * 3) % WORDS.length]} needs attention`;
}

/** Exactly `n` events of a plausible agent's life. */
export async function generateEvents(n: number): Promise<LogEvent[]> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const p = createInMemoryProvider({ clock, entropy: seededEntropy(7), eventMeta: { actor: 'generator' } });
  let events = 0;
  let session = '';
  let i = 0;
  while (events < n) {
    i += 1;
    clock.advance(1);
    const pick = i % 20;
    if (session === '' || pick === 0) {
      session = (await p.sessions.create({ title: `Session ${i}`, model: 'gpt-4.1' })).id;
    } else if (pick === 1) {
      await p.skills.upsert({ slug: `skill-${i % 50}`, name: `Skill ${i % 50}`, body: sentence(i), tags: [WORDS[i % WORDS.length]!] });
    } else if (pick === 2 && i > 100) {
      await p.skills.recordOutcome(`skill-${(i - 1) % 50}`, { success: i % 3 !== 0 });
    } else if (pick === 3 || pick === 4) {
      const item = await p.memory.write({ kind: pick === 3 ? 'fact' : 'preference', content: sentence(i), source: 'generator' });
      if (i % 7 === 0 && events + 1 < n) {
        await p.memory.delete(item.id);
        events += 1;
      }
    } else if (pick === 5 && i % 100 === 5 && events + 1 < n) {
      await p.sessions.delete(session);
      session = (await p.sessions.create({ title: `Session ${i}` })).id;
      events += 1;
    } else {
      await p.sessions.appendTurn({ sessionId: session, role: i % 2 === 0 ? 'user' : 'assistant', content: sentence(i) });
    }
    events += 1;
  }
  const all = await p.log.read({ stream: STATE_STREAM });
  if (all.length !== n) throw new Error(`generated ${all.length} events, wanted ${n}`);
  return all;
}

/** The event lines of an export, each with its newline: canonical JSON Lines. */
export function eventLines(events: readonly LogEvent[]): string {
  return events.map((e) => `${canonicalJson(e)}\n`).join('');
}

/** The trailer line (with its newline) that ends an export whose event lines are `lines`. */
export function trailerFor(lines: string): string {
  const events = lines === '' ? 0 : lines.split('\n').length - 1;
  return `${JSON.stringify({ trailer: { events, sha256: createHash('sha256').update(lines).digest('hex') } })}\n`;
}

/** The events as an export: canonical JSON Lines, then the trailer. */
export function exportText(events: readonly LogEvent[]): string {
  const lines = eventLines(events);
  return `${lines}${trailerFor(lines)}`;
}

/** Writes an export of exactly `n` events to `path`. */
export async function writeExport(path: string, n: number): Promise<void> {
  writeFileSync(path, exportText(await generateEvents(n)));
}

/** Creates the database at `path` holding `events`: appended to its log in one transaction, then folded. */
export async function writeDatabase(path: string, events: readonly LogEvent[]): Promise<void> {
  const log = openSqliteLog(path);
  await log.appendMany(events.map(({ seq: _seq, ...input }) => input));
  await log.close();
  await (await openSqlite(path)).close();
}
