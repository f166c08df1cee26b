/**
 * A SQLite file with something in every view: sessions in two namespaces
 * (one with tool calls, their results, reasoning and metadata, one long
 * enough to need virtualising), skills with versions and outcomes over
 * time, memory of several kinds with metadata (one item updated, so it has
 * a history), and a stored snapshot.
 */
import { ManualClock } from '@agentstate/core';
import { openSqlite, type SqliteProvider } from '@agentstate/sqlite';
import { createStaticEmbedder } from '@agentstate/embeddings';

/** What the fixture wrote, for the tests' expectations. */
export interface Seeded {
  /** The head once the sessions were written, before any skill or memory. */
  afterSessions: number;
  head: number;
  toolSessionId: string;
  longSessionId: string;
  longTurns: number;
}

/** A clock one minute further at every reading, so the charts have a time axis. */
function minuteClock(start = Date.UTC(2026, 10, 1, 9)) {
  const clock = new ManualClock(start);
  return {
    now: () => {
      clock.advance(60_000);
      return clock.now();
    },
  };
}

/**
 * Opens `path` (created when missing) for writing: with the default
 * embedder when asked (memory then gets vectors for semantic recall), and
 * without waiting for the disk at each commit, which a test does not need.
 */
export async function openWriter(path: string, options: { embedder?: boolean; clock?: { now(): number } } = {}): Promise<SqliteProvider> {
  return openSqlite(path, {
    embedder: options.embedder ? createStaticEmbedder() : undefined,
    clock: options.clock ?? minuteClock(Date.UTC(2026, 10, 20, 9)),
    synchronous: 'off',
  });
}

/** Writes the fixture into a new file at `path`, with `longTurns` turns in the long session. */
export async function writeFixture(path: string, longTurns = 300): Promise<Seeded> {
  const clock = minuteClock();
  // Sessions without an embedder: embedding thousands of turns is not what these tests are about.
  const db = await openWriter(path, { clock });
  const tool = await db.sessions.create({ title: 'Weather in Lisbon', model: 'gpt-test', scope: ['team', 'web'], metadata: { channel: 'chat' } });
  await db.sessions.appendTurn({ sessionId: tool.id, role: 'user', content: 'What is the weather in Lisbon tomorrow?' });
  await db.sessions.appendTurn({
    sessionId: tool.id,
    role: 'assistant',
    parts: [
      { type: 'reasoning', text: 'The user wants a forecast; call the weather tool.' },
      { type: 'tool-call', callId: 'call-1', toolName: 'get_weather', input: { city: 'Lisbon', day: 'tomorrow' } },
    ],
    metadata: { model: 'gpt-test', tokens: 182, latencyMs: 640 },
  });
  await db.sessions.appendTurn({
    sessionId: tool.id,
    role: 'tool',
    parts: [{ type: 'tool-result', callId: 'call-1', toolName: 'get_weather', output: { forecast: 'sunny', highC: 24 }, isError: false }],
  });
  await db.sessions.appendTurn({ sessionId: tool.id, role: 'assistant', content: 'Sunny tomorrow in Lisbon, up to 24 °C.', metadata: { tokens: 41 } });

  const long = await db.sessions.create({ title: 'Long support chat', model: 'gpt-test', scope: ['team', 'support'] });
  // One batch: the same events and rows as one appendTurn per turn (docs/contract.md, batch writes), in one transaction.
  await db.sessions.appendTurns(
    long.id,
    Array.from({ length: longTurns }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `Message number ${i + 1} about the invoice` }) as const),
  );
  await db.sessions.create({ title: 'Onboarding', scope: ['team', 'web'] });
  const afterSessions = await db.log.head('state');
  await db.close();

  const withVectors = await openWriter(path, { embedder: true, clock });
  try {
    await seedSkillsAndMemory(withVectors);
    return { afterSessions, head: await withVectors.log.head('state'), toolSessionId: tool.id, longSessionId: long.id, longTurns };
  } finally {
    await withVectors.close();
  }
}

async function seedSkillsAndMemory(db: SqliteProvider): Promise<void> {
  await db.skills.upsert({ slug: 'refund', name: 'Issue a refund', body: '# Refund\n\n1. Check the **invoice**.\n2. Refund it.', tags: ['billing'] });
  await db.skills.recordOutcome('refund', { success: true });
  await db.skills.recordOutcome('refund', { success: false });
  await db.skills.upsert({
    slug: 'refund',
    body: '# Refund\n\n1. Check the **invoice** and the plan.\n2. Refund it.\n\n<script>window.pwned = true</script><img src="x" onerror="window.pwned = true">\n\n| step | owner |\n| --- | --- |\n| check | agent |',
  });
  for (const success of [true, true, false, true]) await db.skills.recordOutcome('refund', { success });
  await db.skills.upsert({ slug: 'greet', name: 'Greet the user', body: 'Say *hello*.', scope: ['team', 'web'] });

  await db.memory.write({ content: 'The user prefers dark mode', kind: 'preference', scope: ['team', 'web'], metadata: { topic: 'ui' } });
  const plan = await db.memory.write({ content: 'The customer is on the free plan', kind: 'fact', scope: ['team', 'support'], metadata: { topic: 'billing' } });
  await db.memory.update(plan.id, { content: 'The customer is on the pro plan' });
  await db.memory.write({ content: 'Invoices are sent on the first day of the month', kind: 'fact', metadata: { topic: 'billing' } });
  await db.memory.write({ content: 'Refunds over 100 EUR need a manager', kind: 'policy', metadata: { topic: 'billing' } });
  await db.saveSnapshot();
}
