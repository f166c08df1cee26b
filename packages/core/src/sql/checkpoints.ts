/** The SQL of a checkpoint list both SQL backends run (`CheckpointQueries.list`). */
import type { CheckpointQueries } from '../write/backend.js';
import type { Params } from './metadata.js';

/**
 * What follows `FROM checkpoints <alias>` in a list: the thread and
 * namespace asked for, the keyset past `after`, newest first, and the limit
 * (`none`: the dialect's value for no limit).
 */
export function checkpointPageSql(p: Params, query: Parameters<CheckpointQueries['list']>[0], alias: string, none: -1 | null): string {
  const { threadId, namespace, after, limit } = query;
  const where: string[] = [];
  if (threadId !== undefined) where.push(`${alias}thread_id = ${p.add(threadId)}`);
  if (namespace !== undefined) where.push(`${alias}namespace = ${p.add(namespace)}`);
  const key = `${alias}checkpoint_id, ${alias}thread_id, ${alias}namespace`;
  if (after !== undefined) where.push(`(${key}) < (${p.add(after.checkpointId)}, ${p.add(after.threadId)}, ${p.add(after.namespace)})`);
  const order = `${alias}checkpoint_id DESC, ${alias}thread_id DESC, ${alias}namespace DESC`;
  return `${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ${p.add(limit > 0 ? limit : none)}`;
}
