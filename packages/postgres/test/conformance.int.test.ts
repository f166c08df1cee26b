/**
 * The conformance suite of @agentstate/testing against PostgreSQL, part one: the checks of the parts in `IN_FIRST_FILE`
 * (the factory: `conformance-factory.ts`). The suite is split in three files only so that workers of a run share it:
 * one file was the longest of the run.
 */
import { runProviderConformance } from '@agentstate/testing';
import { IN_FIRST_FILE, postgresFactory, suiteOptions } from './conformance-factory.js';

runProviderConformance(
  postgresFactory,
  suiteOptions((part) => IN_FIRST_FILE.includes(part)),
);
