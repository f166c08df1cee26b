/**
 * Payload schema version 2, the shape written before version 3 (docs/contract.md §7).
 * Version 3 changed what is stored, not what is read: a version 2
 * `session.turn_appended` carries the session's post-image, which version 3
 * still reads (and checks and projects as it stands), and its turn in full,
 * which is a valid compacted turn. So every step is the identity.
 */
import { EventTypes } from '../events.js';
import type { UpcasterRegistry } from '../upcasters.js';

/** Registers the version 2 → 3 step of every event type version 2 wrote. */
export function registerV2Upcasters(registry: UpcasterRegistry): UpcasterRegistry {
  for (const type of Object.values(EventTypes)) registry.register(type, 2, (payload) => payload);
  return registry;
}
