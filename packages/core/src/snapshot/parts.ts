/**
 * The parts of a snapshot a time-travel view reads one at a time
 * (docs/contract.md §11): each names the collections its reads need, so the
 * first read of a view restores the chunks of those collections only.
 */
import type { Snapshot } from './snapshot.js';

/** The parts of a snapshot, in the order a whole restore reads them. */
export const SNAPSHOT_PARTS = ['sessions', 'turns', 'skills', 'memory', 'operations', 'checkpoints'] as const;

/** One part of a snapshot. */
export type SnapshotPart = (typeof SNAPSHOT_PARTS)[number];

/** The collections of a {@link Snapshot} (everything but its seq). */
export type SnapshotCollections = Omit<Snapshot, 'seq'>;

/** The collections each part holds. */
export const PART_COLLECTIONS: Readonly<Record<SnapshotPart, readonly (keyof SnapshotCollections)[]>> = {
  sessions: ['sessions'],
  turns: ['turns'],
  skills: ['skills'],
  memory: ['memory'],
  operations: ['operations'],
  checkpoints: ['checkpoints', 'checkpointWrites'],
};
