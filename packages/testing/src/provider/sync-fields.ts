/** Y19–Y22, Y24–Y26: record fields and skill content merged against changes made apart (docs/contract.md §12, "Merge"). */
import { ERASED, sync } from '@agentstate/core';
import { expect } from 'vitest';
import { checks, needing, type ProviderCheck } from '../suite/harness.js';
import { storedText } from './erasure.js';
import { eachClockedPair, expectConverged } from './sync.js';

export const syncFieldChecks: ProviderCheck[] = checks(['eventSourced', 'sync'], {
  'Y19 a skill deleted on one store while the other deletes and then purges it, synced one event a batch, is the erased tombstone of the purge on both, whichever delete is later':
    needing(['injectableClock'], async (env) => {
      for (const purgerAhead of [true, false])
        await eachClockedPair(env, async (a, b, [onA, onB]) => {
          const skill = await a.skills.upsert({ slug: 'deploy', body: 'the quartzite steps' });
          await sync(a, b);
          (purgerAhead ? onB : onA).advance(60_000);
          await a.skills.delete(skill.id);
          await b.skills.delete(skill.id);
          await b.purge({ id: skill.id, reason: 'request of the owner' });
          const tombstone = await b.skills.getAny(skill.id);
          // The purge's rewritten delete and the purge come in batches of their own.
          await sync(a, b, { batchSize: 1 });
          for (const p of [a, b]) {
            expect(await p.skills.getAny(skill.id), 'the tombstone of the purge').toMatchObject({
              body: ERASED,
              deleted: true,
              version: tombstone.version,
              syncVersion: 4,
            });
            expect(await storedText(p)).not.toContain('quartzite');
          }
          await expectConverged([a, b]);
        });
    }),
});
