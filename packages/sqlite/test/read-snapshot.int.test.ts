/**
 * One read of a provider (a snapshot's capture, a page of a list) sees one
 * committed state, even when its read transaction opens on the write
 * handle: its statements stay on that handle, whatever another process
 * commits between them (docs/contract.md §4, "Readers see only committed
 * writes"; a capture that mixed two states stored a snapshot that differs
 * from the log).
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Connection } from '../src/connection.js';
import { tempDir } from './helpers.js';

describe('a read transaction', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir('agentstate-read-snapshot-');
  });
  afterEach(() => tmp.cleanup());

  it('sees one committed state across its statements while another connection commits between them', () => {
    const path = tmp.file();
    const setup = new Database(path);
    setup.pragma('journal_mode = WAL');
    setup.exec('CREATE TABLE notes (n INTEGER)');
    setup.close();
    const options = { synchronous: 'normal' } as const;
    const conn = Connection.open(path, options);
    conn.configure(options);
    conn.openReader(options);
    const other = new Database(path);
    try {
      const count = () => (conn.prepare('SELECT count(*) AS n FROM notes').get() as { n: number }).n;
      const [before, after] = conn.read(() => {
        const first = count();
        other.exec('INSERT INTO notes VALUES (1)');
        return [first, count()];
      });
      expect(after).toBe(before);
      expect(count()).toBe(before + 1);
    } finally {
      other.close();
      conn.closeHandles();
    }
  });
});
