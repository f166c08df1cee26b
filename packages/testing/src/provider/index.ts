/** Every provider check, in the order of docs/conformance.md, then the extra checks. */
import { ValidationError } from '@agentstate/core';
import type { ProviderCheck } from '../suite/harness.js';
import { batchChecks } from './batch.js';
import { checkpointChecks } from './checkpoints.js';
import { compactionChecks } from './compaction.js';
import { contextChecks } from './context.js';
import { erasureChecks } from './erasure.js';
import { eventSourcingChecks } from './event-sourcing.js';
import { extraChecks } from './extra.js';
import { faceChecks } from './faces.js';
import { idempotencyChecks } from './idempotency.js';
import { lexicalChecks } from './lexical.js';
import { lifecycleChecks } from './lifecycle.js';
import { memoryModelChecks } from './memory-model.js';
import { namespaceChecks } from './namespaces.js';
import { orderingChecks } from './ordering.js';
import { pageChecks } from './pages.js';
import { rollbackChecks } from './rollback.js';
import { purgeTextChecks } from './purge-text.js';
import { searchChecks } from './search.js';
import { storeChecks } from './stores.js';
import { syncChecks } from './sync.js';
import { syncSeedChecks } from './sync-seed.js';
import { syncFieldChecks } from './sync-fields.js';
import { keyItemChecks, syncKeyChecks } from './sync-keys.js';
import { syncRetentionChecks } from './sync-retention.js';
import { syncOrderChecks } from './sync-order.js';
import { syncPurgeChecks } from './sync-purge.js';
import { syncScopeChecks } from './sync-scope.js';
import { syncTurnChecks } from './sync-turns.js';
import { writerChecks } from './many-writers.js';
import { snapshotChecks } from './snapshots.js';
import { turnChecks } from './turns.js';
import { validationChecks } from './validation.js';
import { workingMemoryChecks } from './working-memory.js';

const all: ProviderCheck[] = [
  ...storeChecks,
  ...turnChecks,
  ...memoryModelChecks,
  ...eventSourcingChecks,
  ...snapshotChecks,
  ...orderingChecks,
  ...lexicalChecks,
  ...validationChecks,
  ...idempotencyChecks,
  ...extraChecks,
  ...faceChecks,
  ...searchChecks,
  ...namespaceChecks,
  ...pageChecks,
  ...checkpointChecks,
  ...batchChecks,
  ...writerChecks,
  ...rollbackChecks,
  ...lifecycleChecks,
  ...erasureChecks,
  ...purgeTextChecks,
  ...syncChecks,
  ...syncFieldChecks,
  ...syncScopeChecks,
  ...syncRetentionChecks,
  ...syncKeyChecks,
  ...keyItemChecks,
  ...syncTurnChecks,
  ...syncOrderChecks,
  ...syncPurgeChecks,
  ...syncSeedChecks,
  ...contextChecks,
  ...compactionChecks,
  ...workingMemoryChecks,
];

/** Sort key of a check name: part letter, then number (A1 < A2 < A10 < B30 < T1 < X1). */
function key(name: string): string {
  const match = /^([A-Z])(\d+) /.exec(name);
  if (!match) throw new ValidationError('name', `check name without a part letter and number: ${name}`);
  return `${match[1]}${match[2]!.padStart(6, '0')}`;
}

/** The provider checks, ordered by their number. */
export const providerChecks: readonly ProviderCheck[] = all.sort((a, b) => key(a.name).localeCompare(key(b.name)));
