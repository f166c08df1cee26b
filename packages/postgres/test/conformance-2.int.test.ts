/**
 * The conformance suite of @agentstate/testing against PostgreSQL, part two: the checks of neither `IN_FIRST_FILE` nor
 * `IN_THIRD_FILE`, and the log suite (the factory: `conformance-factory.ts`). The suite is split in three files only
 * so that workers of a run share it: one file was the longest of the run.
 */
import { runLogConformance, runProviderConformance } from '@agentstate/testing';
import { IN_FIRST_FILE, IN_THIRD_FILE, postgresFactory, postgresLogFactory, suiteOptions } from './conformance-factory.js';

runProviderConformance(
  postgresFactory,
  suiteOptions((part) => !IN_FIRST_FILE.includes(part) && !IN_THIRD_FILE.includes(part)),
);
runLogConformance(postgresLogFactory);
