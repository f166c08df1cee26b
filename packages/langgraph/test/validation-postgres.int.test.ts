/**
 * LangGraph's own checkpointer validation suite (see validation.int.test.ts) against the saver
 * opened in one call on PostgreSQL (`openPostgresSaver`), each checkpointer in a schema of its own,
 * with messages mirrored into transcripts, which must change nothing a checkpointer is held to.
 */
import { validate } from '@langchain/langgraph-checkpoint-validation';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentStateSaver } from '../src/index.js';
import { openPostgresSaver } from '../src/index.js';
import { freshSchema, releaseSchema, testServer } from '../../postgres/test/cluster.js';

Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });

const schemas = new WeakMap<AgentStateSaver, string>();

validate<AgentStateSaver>({
  checkpointerName: 'AgentStateSaver (PostgreSQL, one call)',
  async createCheckpointer() {
    const schema = freshSchema('lg');
    const saver = await openPostgresSaver((await testServer()).url, { schema, mirrorMessages: true });
    schemas.set(saver, schema);
    return saver;
  },
  async destroyCheckpointer(saver) {
    await saver.close();
    await releaseSchema((await testServer()).url, schemas.get(saver)!);
  },
});
