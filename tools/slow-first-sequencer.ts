/**
 * Vitest's order, with the files known to take longest started first. With
 * no results cache (a clean clone in CI), vitest starts larger files first,
 * and the longest file of the run, the PostgreSQL conformance suite, is one
 * of the smallest: started last, it ran alone at the end of the run for
 * minutes. The list is a hint for the order only; no test depends on it.
 */
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/** The slowest files of a clean-clone run, slowest first (paths below `packages/`). */
const SLOW_FIRST = [
  'cli/test/packaging.int.test.ts',
  'sqlite/test/faults.int.test.ts',
  'sqlite/test/conformance.int.test.ts',
  'postgres/test/conformance-2.int.test.ts',
  'ui/test/inspector.int.test.ts',
  'sqlite/test/durability.int.test.ts',
  'postgres/test/pgvector.int.test.ts',
  'postgres/test/fleet.int.test.ts',
  'postgres/test/conformance-3.int.test.ts',
  'postgres/test/conformance.int.test.ts',
  'cli/test/import-race.int.test.ts',
  'langgraph/test/restart.int.test.ts',
  'cli/test/postgres.int.test.ts',
  'cli/test/sync-faults.int.test.ts',
  'cli/test/roundtrip.int.test.ts',
];

/**
 * The projects in the order their other files start: a worker that shares its process between files (int, unit) keeps
 * it only while the next file in the queue is of the same project, so each project's files follow one another.
 */
const PROJECTS = ['int', 'postgres', 'unit'];

function rank(spec: TestSpecification): number {
  const index = SLOW_FIRST.findIndex((path) => spec.moduleId.replaceAll('\\', '/').endsWith(`packages/${path}`));
  return index === -1 ? SLOW_FIRST.length : index;
}

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Array.prototype.sort is stable: within a project, the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b) || PROJECTS.indexOf(a.project.name) - PROJECTS.indexOf(b.project.name));
  }
}
