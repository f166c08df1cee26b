/** The one resolution of which database a face or `openDatabase` opens. */
import { resolve } from 'node:path';
import { ValidationError } from '@agentstate/core';
import { isPostgresUrl, redactUrl } from '@agentstate/postgres/url';
import { DATABASE_ENV, DEFAULT_DATABASE_PATH } from './defaults.js';

/** SQLite's name for a database that lives in memory only. */
const IN_MEMORY = ':memory:';

/** A URL's scheme at the start of a target: `htp://…` or `postgress://…` is a mistyped URL, never a path meant. */
const URL_SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

/**
 * The database `target` names: `target` (a `--db` value), else
 * {@link DATABASE_ENV} when set and not empty, else
 * {@link DEFAULT_DATABASE_PATH}. A `postgres://` URL and `:memory:` are kept
 * as given; a path is made absolute against `cwd`. A blank
 * one is a `ValidationError`: it would name the working directory. So is a
 * URL of another scheme (`http://`, a mistyped `postgress://`): taken as a
 * path, it would create a file in a folder named after the scheme.
 */
export function resolveTarget(target?: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const chosen = target ?? (env[DATABASE_ENV] || undefined) ?? DEFAULT_DATABASE_PATH;
  if (chosen.trim() === '') throw new ValidationError('database path', `is empty (set by --db or ${DATABASE_ENV})`);
  const scheme = isPostgresUrl(chosen) ? undefined : URL_SCHEME.exec(chosen)?.[1];
  if (scheme !== undefined) throw new ValidationError('database path', `is a ${scheme}:// URL, which names no database: give a file path or a postgres:// URL`);
  return isPostgresUrl(chosen) || chosen === IN_MEMORY ? chosen : resolve(cwd, chosen);
}

/** A resolved target fit for a status line: a URL without its password. */
export function describeTarget(target: string): string {
  return isPostgresUrl(target) ? redactUrl(target) : target;
}
