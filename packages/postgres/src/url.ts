/**
 * Telling a PostgreSQL URL from a file path, for the tools that take either
 * (`agentstate --db`, `agentstate-mcp --db`, `AGENTSTATE_DB`). A module of
 * its own (`@agentstate/postgres/url`) so that deciding costs no driver load.
 */

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** Whether `db` names a PostgreSQL server (`postgres://` or `postgresql://`) rather than a file. */
export function isPostgresUrl(db: string): boolean {
  return POSTGRES_URL.test(db);
}

/**
 * The connection URL and schema of a database URL: the `schema` query
 * parameter (which the driver would not understand) is taken out; without
 * one the schema is the default, `agentstate`.
 */
export function splitSchema(db: string): { url: string; schema: string | undefined } {
  const url = new URL(db);
  const schema = url.searchParams.get('schema') ?? undefined;
  url.searchParams.delete('schema');
  return { url: url.toString(), schema };
}

/** A database URL fit for a status line: its password replaced by `***`. */
export function redactUrl(db: string): string {
  try {
    const url = new URL(db);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return 'a PostgreSQL server';
  }
}
