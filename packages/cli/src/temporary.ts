/**
 * Files that take a user's path only when complete, and never take it from
 * someone else. Work happens in a temporary file beside the target, named
 * `<target>.<purpose>-<pid>`: removed on failure and on SIGINT, SIGTERM and
 * SIGHUP; after a SIGKILL (which cannot be caught) the next command that
 * makes such a file in the same folder removes those whose process is gone.
 * The finished file takes the target's name with a hard link, which fails
 * when the name exists instead of replacing it, as a rename would.
 */
import { createWriteStream, linkSync, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { mapFileError, occupied } from '@agentstate/sqlite';
import { dirname, join } from 'node:path';
import { UserError } from './errors.js';
import { inCwd, io } from './io.js';
import { onStopSignal, signalExitCode } from './signals.js';

/** What a temporary file is for; part of its name. */
export type Purpose = 'importing' | 'exporting';

/** Files SQLite keeps beside a database. */
export const SIDE_SUFFIXES = ['-wal', '-shm', '-journal'] as const;

const TEMPORARY_NAME = /\.(?:importing|exporting)-(\d+)(?:-wal|-shm|-journal)?$/;

/** Removes a file and the files SQLite may keep beside it. */
function removeWithSideFiles(path: string): void {
  for (const suffix of ['', ...SIDE_SUFFIXES]) rmSync(`${path}${suffix}`, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Removes the temporary files in `dir` left by processes that no longer run. */
function removeStaleTemporaries(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = TEMPORARY_NAME.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isAlive(Number(pid))) continue;
    rmSync(join(dir, name), { force: true });
  }
}

/** Refuses a target database path that exists or has SQLite files left beside it. */
export function refuseOccupiedDatabase(target: string, when = ''): void {
  if (occupied(target)) throw new UserError(`${target} ${when || 'already exists'}: import creates a new database (choose another --db); nothing was imported`);
  const leftover = SIDE_SUFFIXES.map((s) => `${target}${s}`).find(occupied);
  if (leftover !== undefined) {
    throw new UserError(
      `${leftover} exists without its database: SQLite would apply it to the new file; move it away (it may hold the last writes of a lost database) and import again; nothing was imported`,
    );
  }
}

/**
 * Gives the complete file at `temporary` the name `target` without ever
 * replacing what is there; `temporary` is gone afterwards. A name that
 * appeared meanwhile is a {@link UserError} and stays untouched.
 */
function linkNoReplace(temporary: string, target: string, what: string): void {
  try {
    linkSync(temporary, inCwd(target));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UserError(`${target} appeared while the ${what} ran and was left untouched; nothing was written to it`);
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS') {
      throw new UserError(
        `cannot create ${target} without risking to replace a file: its file system has no hard links (${code}); write to another folder, then move the file`,
      );
    }
    throw mapFileError(error, target, 'write');
  }
  rmSync(temporary, { force: true });
}

/**
 * Makes the file `target` (`name`, as the user gave it) in a temporary file
 * beside it: `make` writes the temporary file, which is removed with its side
 * files when `make` or the naming fails, or when a signal arrives (after
 * `onSignal`; the process then says so and exits 128 + the signal's
 * number). Then the file takes the target's name: by rename when `replace`,
 * else never replacing one that appeared meanwhile.
 */
export async function makeInPlace<T>(
  target: string,
  name: string,
  purpose: Purpose,
  make: (temporary: string) => Promise<T>,
  { replace = false, onSignal }: { replace?: boolean; onSignal?: () => void } = {},
): Promise<T> {
  removeStaleTemporaries(dirname(target));
  const temporary = `${target}.${purpose}-${process.pid}`;
  removeWithSideFiles(temporary);
  const what = purpose === 'importing' ? 'import' : 'export';
  // A signal exits once the half-made file is gone, saying so.
  const off = onStopSignal((signal) => {
    onSignal?.();
    removeWithSideFiles(temporary);
    io().stderr.write(`agentstate: ${what} stopped by ${signal}: nothing was written to ${name}\n`);
    process.exit(signalExitCode(signal));
  });
  try {
    const made = await make(temporary);
    if (!replace) linkNoReplace(temporary, name, what);
    else {
      try {
        renameSync(temporary, target);
      } catch (error) {
        throw mapFileError(error, name, 'write');
      }
    }
    return made;
  } catch (error) {
    removeWithSideFiles(temporary);
    throw error;
  } finally {
    off();
  }
}

/**
 * Refuses an output path whose folder is missing or that is itself a folder,
 * before any work is done, in words rather than an errno.
 */
export function refuseUnwritableOutput(out: string): void {
  const folder = dirname(inCwd(out));
  const stat = (path: string) => statSync(path, { throwIfNoEntry: false });
  if (!stat(folder)?.isDirectory()) throw new UserError(`cannot write ${out}: the folder ${folder} does not exist`);
  if (stat(inCwd(out))?.isDirectory()) throw new UserError(`cannot write ${out}: it is a folder; name a file`);
}

/**
 * Creates `path` exclusively and returns a stream onto it. Opening is
 * synchronous so that a refusal (permission, read-only or full file system)
 * is a typed error here, not an unhandled stream event later. Errors name
 * `target`, the path the user gave.
 */
export function createExclusive(path: string, target: string = path): WriteStream {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    throw mapFileError(error, target, 'write');
  }
  return createWriteStream(path, { fd });
}
