/**
 * Checks of the database file made with the file system before SQLite sees
 * it, because SQLite itself takes a 0-byte file for an empty database and
 * reads past the end of a truncated one as zeros. Reads only the 100-byte
 * header; changes nothing.
 */
import type { Stats } from 'node:fs';
import { accessSync, closeSync, constants, lstatSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { databaseNotFound, IncompatibleDatabaseError, mapFileError, NotAFileError, ReadOnlyError } from './errors.js';

const HEADER_BYTES = 100;
const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** True for the paths that name no file (`:memory:`, a temporary database). */
export function isAnonymous(path: string): boolean {
  return path === ':memory:' || path === '';
}

/** The file system's record of `path`, or null when nothing is there; any other failure as `mapFileError` names it. */
export function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw mapFileError(error, path, 'open');
  }
}

/** Size in bytes of the file at `path`; 0 when there is none, or it cannot be examined. */
export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** True when something (a file, a folder, even a dangling link) is at `path`. */
export function occupied(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function readHeader(path: string): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw mapFileError(error, path, 'read');
  }
  try {
    readSync(fd, header, 0, HEADER_BYTES, 0);
  } catch (error) {
    throw mapFileError(error, path, 'read');
  } finally {
    closeSync(fd);
  }
  return header;
}

/**
 * Refuses a folder that cannot take a new file (no permission, a read-only
 * file system), which SQLite reports only as "unable to open"; a missing
 * folder is left to SQLite, which the caller names as a missing database.
 */
function checkFolderTakesFile(path: string): void {
  try {
    accessSync(dirname(path), constants.W_OK | constants.X_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw mapFileError(error, path, 'create');
  }
}

/**
 * Refuses what SQLite would misread: a missing file when `mustExist`, a
 * folder that cannot take a new file when not, a folder or other non-file, a file that cannot be written when opening for
 * writing (`mustExist` false), an empty file when `mustExist` (a writer may
 * create a database in a 0-byte file it made itself), a file shorter than a
 * SQLite header or than its header says, and a file that is not SQLite.
 * While a non-empty `-wal` exists another process may be checkpointing, so
 * the length is not judged then.
 */
export function checkDatabaseFile(path: string, mustExist: boolean): void {
  if (isAnonymous(path)) return;
  const stat = statOrNull(path);
  if (!stat) {
    if (mustExist) throw databaseNotFound(path, 'open');
    checkFolderTakesFile(path);
    return;
  }
  if (stat.isDirectory()) throw new NotAFileError(path, `cannot open ${path}: it is a folder, not a database file`);
  if (!stat.isFile()) throw new NotAFileError(path, `cannot open ${path}: it is not a regular file`);
  // SQLite would open an unwritable file read-only without a word, and fail at the first write.
  if (!mustExist && !writable(path)) throw new ReadOnlyError(path, `cannot write ${path}: the file is read-only`);
  const size = stat.size;
  if (size === 0) {
    if (mustExist) throw new IncompatibleDatabaseError(path, 'empty', 'is empty (0 bytes), not a database');
    return;
  }
  const header = readHeader(path);
  const known = Math.min(size, MAGIC.length);
  if (!header.subarray(0, known).equals(MAGIC.subarray(0, known))) throw new IncompatibleDatabaseError(path, 'not-sqlite', 'is not a SQLite database');
  if (size < HEADER_BYTES) throw new IncompatibleDatabaseError(path, 'truncated', `is truncated: ${size} bytes, shorter than a SQLite header`);
  const raw = header.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) throw new IncompatibleDatabaseError(path, 'not-sqlite', 'is not a SQLite database (bad page size)');
  if (fileSize(`${path}-wal`) > 0) return;
  // The page count in the header (offset 28) is valid only when the change counter (24) equals "version-valid-for" (92).
  const pages = header.readUInt32BE(24) === header.readUInt32BE(92) ? header.readUInt32BE(28) : 0;
  if (size % pageSize !== 0 || size < pages * pageSize) {
    const expected = pages > 0 ? `, its header says ${pages * pageSize}` : `, not a whole number of ${pageSize}-byte pages`;
    throw new IncompatibleDatabaseError(path, 'truncated', `is truncated: ${size} bytes${expected}`);
  }
}
