/** The upcasters this library ships: every older payload shape it ever wrote (docs/contract.md §7). */
import { EventTypes } from '../events.js';
import { UpcasterRegistry } from '../upcasters.js';
import { registerV1Upcasters } from './v1.js';

/**
 * Payload schema version 2, the shape written before version 3 (docs/contract.md §7).
 * Version 3 changed what is stored, not what is read: a version 2
 * `session.turn_appended` carries the session's post-image, which version 3
 * still reads (and checks and projects as it stands), and its turn in full,
 * which is a valid compacted turn. So every step is the identity.
 */
function registerV2Upcasters(registry: UpcasterRegistry): UpcasterRegistry {
  for (const type of Object.values(EventTypes)) registry.register(type, 2, (payload) => payload);
  return registry;
}

/** The built-in upcasters, consulted after a caller's own registry. */
export const BUILT_IN_UPCASTERS: UpcasterRegistry = registerV2Upcasters(registerV1Upcasters(new UpcasterRegistry()));
