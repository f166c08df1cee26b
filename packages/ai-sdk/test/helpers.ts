/** Test helpers: a fresh SQLite file, removed by the returned cleanup. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh folder and a database path in it. */
export function tempDb(): { dir: string; db: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-ai-sdk-'));
  return { dir, db: join(dir, 'state.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
