/** The names and needs of every check, for tooling and for checking the suite itself. */
import type { Capability } from './factory.js';
import { logChecks } from './log/checks.js';
import { providerChecks } from './provider/index.js';

/** A check as listed: its name (starting with its number) and the capabilities it needs. */
export interface CheckInfo {
  name: string;
  needs: readonly Capability[];
}

/** Every provider check, in the order `runProviderConformance` registers them. */
export function listProviderChecks(): CheckInfo[] {
  return providerChecks.map((c) => ({ name: c.name, needs: [...(c.needs ?? [])] }));
}

/** Every log check, in the order `runLogConformance` registers them. */
export function listLogChecks(): CheckInfo[] {
  return logChecks.map((c) => ({ name: c.name, needs: [...(c.needs ?? [])] }));
}
