/**
 * A second process saving a chat: `save-worker.ts <db> <chatId> <messages JSON>`.
 * It opens the file, prints `ready`, and saves (twice at once, as a retried
 * request would) when it reads a line on stdin, so that the test can start
 * several workers' saves together.
 */
import { once } from 'node:events';
import { openSqlite } from '@agentstate/sqlite';
import type { UIMessage } from 'ai';
import { createChatStore } from '../src/index.js';

const [db, chatId, json] = process.argv.slice(2) as [string, string, string];
const state = await openSqlite(db);
const chats = createChatStore({ provider: state, scope: ['user', 'ana'] });
const messages = JSON.parse(json) as UIMessage[];
process.stdout.write('ready\n');
await once(process.stdin, 'data');
await Promise.all([chats.saveChat({ chatId, messages }), chats.saveChat({ chatId, messages })]);
await state.close();
process.stdin.destroy();
