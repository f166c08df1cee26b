/**
 * The conformance suite of @agentstate/testing against PostgreSQL, part two: the other checks, and the log suite
 * (the factory: `conformance-factory.ts`). The suite is split in two files only so that two workers of a run share
 * it: one file was the longest of the run.
 */
import { runLogConformance, runProviderConformance } from '@agentstate/testing';
import { IN_FIRST_FILE, postgresFactory, postgresLogFactory } from './conformance-factory.js';

runProviderConformance(postgresFactory, { only: (name) => !IN_FIRST_FILE.includes(name[0]!) });
runLogConformance(postgresLogFactory);
