/**
 * Where a received event was first appended (docs/contract.md §12), as `agentstate log` names it
 * (`from <replica> #<seq>`): the replica id shortened, since a fleet's few stores differ in their
 * first characters, and whole in the title.
 */
import { count } from '../util';

/** The first characters of a replica id: enough to tell a fleet's stores apart. */
export const shortReplica = (replica: string): string => replica.slice(0, 8);

/** A received event's origin and its seq there. */
export function Origin({ origin, seq }: { origin: string; seq: number }) {
  return (
    <span className="chip origin" title={`${origin} #${seq}`} data-testid="origin">
      from {shortReplica(origin)} #{count(seq)}
    </span>
  );
}
