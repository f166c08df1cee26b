/** Purge from the page: asked for in words, with the reason the log records. */
import { post } from './api';

/**
 * Asks the user to confirm purging `what` and to give a reason, then purges
 * the record for good. Resolves `false` when the user cancelled.
 */
export async function purgeConfirmed(id: string, what: string): Promise<boolean> {
  const reason = window.prompt(
    `Purge ${what} for good? Its content leaves every event, table, index and snapshot, and this cannot be undone. Why (recorded in the log; never the erased text):`,
  );
  if (reason === null || reason.trim() === '') return false;
  await post(`/purge/${encodeURIComponent(id)}`, { reason: reason.trim() });
  return true;
}
