/** Temporary stand-in for the SQLite provider while it is being built: events in a JSON Lines file. */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { Embedder, LogEvent } from '@agentstate/core';
import { MemoryLog, STATE_STREAM, createMemoryProvider, replay } from '@agentstate/core';
import type { Database } from './database.js';

export async function openDevStore(path: string, options: { embedder?: Embedder }): Promise<Database> {
  const log = new MemoryLog();
  let initial = 0;
  if (existsSync(path)) {
    const text = readFileSync(path, 'utf8');
    if (text.length > 0 && !text.startsWith('{')) {
      const error = new Error('file is not a database');
      (error as Error & { code: string }).code = 'SQLITE_NOTADB';
      throw error;
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line) as LogEvent;
      const { seq: _seq, ...input } = e;
      await log.append(input);
      initial += 1;
    }
  } else {
    appendFileSync(path, '');
  }
  const provider = initial > 0 ? await replay(log, options) : createMemoryProvider({ ...options, log });
  const close = provider.close.bind(provider);
  let closed = false;
  return Object.assign(provider, {
    async rebuild() {},
    async close() {
      if (closed) return;
      closed = true;
      const fresh = await log.read({ stream: STATE_STREAM, afterSeq: initial });
      if (fresh.length) appendFileSync(path, fresh.map((e) => JSON.stringify(e)).join('\n') + '\n');
      await close();
    },
  });
}
