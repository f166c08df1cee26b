/**
 * The embedder behind the command's semantic and hybrid recall: the
 * backend's default (`createDefaultEmbedder` of `@agentstate/sqlite`), the
 * one `agentstate mcp` serves with. One instance per process, so its word
 * table loads once, and only when a recall needs it.
 */
import type { Embedder } from '@agentstate/core';
import { createDefaultEmbedder } from '@agentstate/sqlite';

let embedder: Promise<Embedder> | undefined;

/** The default embedder, created on first use. */
export function defaultEmbedder(): Promise<Embedder> {
  embedder ??= createDefaultEmbedder();
  return embedder;
}
