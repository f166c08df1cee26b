/**
 * Old data keeps working: `fixtures/v1` holds a database file (gzipped) and
 * an export written by version 1 of the library (schema version 4 of the
 * file, payload schema version 1), with what that version read back from
 * them (`reads.json`). Today's code must open (folding its tables again) and read both the
 * same, verify the opened file, and re-export an import of the export.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStaticEmbedder } from '@agentstate/embeddings';
import { importSqlite, openSqlite } from '../src/index.js';
import type { SqliteProvider } from '../src/index.js';
import { type LegacyScope, legacyScope, STATE_STREAM } from '@agentstate/core';
import { tempDir } from './helpers.js';

/** The offline embedder the fixture's semantic reads were taken with. */
const embedder = createStaticEmbedder();

const FIXTURES = fileURLToPath(new URL('./fixtures/v1/', import.meta.url));
const expected = JSON.parse(readFileSync(`${FIXTURES}reads.json`, 'utf8'));
const exportLines = readFileSync(`${FIXTURES}export.jsonl`, 'utf8').split('\n').filter(Boolean);

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

function fixtureFile(): string {
  const path = tmp.file();
  writeFileSync(path, gunzipSync(readFileSync(`${FIXTURES}state.db.gz`)));
  return path;
}

/** The reads the fixture recorded, made again by today's code. */
async function reads(p: SqliteProvider) {
  const sessions = await p.sessions.list();
  return {
    sessions,
    turns: Object.fromEntries(await Promise.all(sessions.map(async (s) => [s.id, await p.sessions.turns(s.id)]))),
    skills: await p.skills.search('', { order: 'slug' }),
    skillsWeb: await p.skills.get('fix-esm', { scope: ['project:web', 'workspace:x'] }),
    memory: await p.memory.recall({ limit: 100 }),
    memoryWeb: await p.memory.recall({ scope: ['project:web'], includeParentScopes: true, limit: 100 }),
    recallDeploy: (await p.memory.recall({ query: 'deploy key', mode: 'lexical' })).map((h) => h.id),
    semanticDeploy: (await p.memory.recall({ query: 'when does the key rotate', mode: 'semantic', minScore: 0.5 })).map((h) => h.id),
  };
}

/**
 * Version 1 wrote scopes as `{ instance, project, workspace }`; today reads
 * them as paths by the documented legacy rule, and its sessions as global.
 */
function asToday(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => asToday(v));
  if (value === null || typeof value !== 'object') return value;
  if (key === 'scope') return legacyScope(value as LegacyScope);
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asToday(v, k)]));
  return out;
}

const { snapshot: _snapshot, ...v1Reads } = expected;
const expectedReads = {
  ...(asToday(v1Reads) as Record<string, unknown>),
  sessions: (asToday(v1Reads.sessions) as object[]).map((s) => ({ ...s, scope: [] })),
};

describe('a database file written by version 1', () => {
  it('opens, folds its tables again and reads as before', async () => {
    const p = await openSqlite(fixtureFile(), { embedder });
    try {
      expect(await reads(p)).toMatchObject(expectedReads);
      expect((await p.verify()).ok).toBe(true);
    } finally {
      await p.close();
    }
  });

  it('rebuilds from its log to the same reads', async () => {
    const p = await openSqlite(fixtureFile(), { embedder });
    try {
      await p.rebuild({ fromScratch: true });
      expect(await reads(p)).toMatchObject(expectedReads);
    } finally {
      await p.close();
    }
  });

  it('purges a session whose events are of payload version 1: they are rewritten whole, in today shape, and verify', async () => {
    const path = fixtureFile();
    const p = await openSqlite(path, { embedder });
    try {
      const [session] = await p.sessions.list();
      const before = await p.history(session!.id);
      // The file's snapshot (format 1) went with its other derived tables when the file was first opened.
      const title = Buffer.from(session!.title, 'utf8');
      expect(await p.log.latestSnapshot(STATE_STREAM)).toBeUndefined();
      await p.purge({ id: session!.id, reason: 'fixture' });
      for (const file of [path, `${path}-wal`].filter(existsSync)) expect(readFileSync(file).includes(title), file).toBe(false);
      const after = await p.history(session!.id);
      expect(after).toHaveLength(before.length + 1);
      expect(after.slice(0, -1).every((v) => v.erasedBy === after.at(-1)!.seq)).toBe(true);
      expect(after.filter((v) => v.kind === 'session').every((v) => v.kind === 'session' && v.record.title === '[erased]')).toBe(true);
      expect((await p.verify()).ok).toBe(true);
    } finally {
      await p.close();
    }
  });
});

describe('an export written by version 1', () => {
  it('imports and reads as before', async () => {
    const path = tmp.file();
    await importSqlite(path, exportLines);
    const p = await openSqlite(path, { embedder });
    try {
      expect(await reads(p)).toMatchObject(expectedReads);
      expect((await p.verify()).ok).toBe(true);
    } finally {
      await p.close();
    }
  });
});
