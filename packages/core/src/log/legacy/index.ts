/** The upcasters this library ships: every older payload shape it ever wrote (docs/contract.md §7). */
import { UpcasterRegistry } from '../upcasters.js';
import { registerV1Upcasters } from './v1.js';
import { registerV2Upcasters } from './v2.js';

/** The built-in upcasters, consulted after a caller's own registry. */
export const BUILT_IN_UPCASTERS: UpcasterRegistry = registerV2Upcasters(registerV1Upcasters(new UpcasterRegistry()));
