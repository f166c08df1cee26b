/**
 * Version 4: every statement inserting events notifies the channel
 * `agentstate_events` with the schema's name when its transaction commits,
 * so a subscriber (`subscribe.ts`) reads new events as soon as they are
 * visible instead of polling. A trigger rather than a statement in the
 * append path: every writer notifies, whatever version of the code appends,
 * and a transaction's notifications with the same payload fold into one.
 */
import type { Migration } from './migration.js';

export const migration004: Migration = {
  version: 4,
  name: 'notify',
  sql: `
CREATE FUNCTION {schema}.notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('agentstate_events', TG_TABLE_SCHEMA);
  RETURN NULL;
END
$$;
CREATE TRIGGER events_notify AFTER INSERT ON {schema}.events FOR EACH STATEMENT EXECUTE FUNCTION {schema}.notify_events();
`,
};
