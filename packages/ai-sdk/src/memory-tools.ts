/**
 * Memory and skill tools for `generateText` / `streamText`, built with the
 * SDK's `tool()` and zod: remember, recall, update, forget, searchSkills,
 * recordSkillOutcome. Every tool works in one scope (one user's), so a
 * model can neither read nor change another user's memory; outputs are
 * plain JSON.
 */
import type { MemoryItem, Provider, ScopeInput, Skill } from '@agentstate/core';
import { NotFoundError, sameScope, toScope } from '@agentstate/core';
import { type Tool, tool } from 'ai';
import { z } from 'zod';

/** Options of {@link memoryTools}. */
export interface MemoryToolsOptions {
  provider: Provider;
  /** The scope the tools read and write, e.g. `['user', userId]`. Default: global. */
  scope?: ScopeInput;
  /** Written as each remembered item's `source`. Default: `ai-sdk`. */
  source?: string;
  /** Most memories `recall` returns. Default: 10. */
  recallLimit?: number;
}

/** A memory as the tools return it. */
export interface MemoryOutput {
  id: string;
  content: string;
  key: string | null;
  kind: string;
  updatedAt: string;
}

/** A skill as the tools return it. */
export interface SkillOutput {
  slug: string;
  name: string;
  body: string;
  tags: string[];
  uses: number;
  wins: number;
}

/**
 * The tools {@link memoryTools} returns, each typed by its input and output
 * (a type alias, not an interface, so that it is assignable to the SDK's `ToolSet`).
 */
export type MemoryTools = {
  remember: Tool<{ content: string; key?: string | undefined; kind?: string | undefined }, MemoryOutput>;
  recall: Tool<{ query?: string | undefined; limit?: number | undefined }, { memories: Array<MemoryOutput & { score: number }> }>;
  update: Tool<{ id: string; content: string }, MemoryOutput>;
  forget: Tool<{ id: string }, { forgotten: string }>;
  searchSkills: Tool<{ query: string; limit?: number | undefined }, { skills: SkillOutput[] }>;
  recordSkillOutcome: Tool<{ slug: string; success: boolean }, SkillOutput>;
};

const memoryOutput = (item: MemoryItem): MemoryOutput => ({
  id: item.id,
  content: item.content,
  key: item.key,
  kind: item.kind,
  updatedAt: item.updatedAt,
});

const skillOutput = (skill: Skill): SkillOutput => ({
  slug: skill.slug,
  name: skill.name,
  body: skill.body,
  tags: [...skill.tags],
  uses: skill.uses,
  wins: skill.wins,
});

/**
 * The six tools, to spread into `tools` of `generateText` or `streamText`.
 * A tool that fails (an unknown id, an id of another scope, bad input)
 * throws a typed `AgentStateError`, which the SDK hands to the model as the
 * tool's error.
 */
export function memoryTools(options: MemoryToolsOptions): MemoryTools {
  const { provider } = options;
  const scope = toScope(options.scope);
  const source = options.source ?? 'ai-sdk';
  const recallLimit = options.recallLimit ?? 10;

  /** The live item `id` of this scope; another scope's item is as unknown as a missing one. */
  const ownItem = async (id: string): Promise<MemoryItem> => {
    const item = await provider.memory.get(id);
    if (!sameScope(item.scope, scope)) throw new NotFoundError('memory', id);
    return item;
  };

  return {
    remember: tool({
      description: 'Remember a durable fact about the user or the task for later conversations. With a key, replaces the fact stored under that key.',
      inputSchema: z.object({
        content: z.string().min(1).describe('The fact, as a self-contained sentence.'),
        key: z.string().min(1).optional().describe('A stable name for the fact (e.g. "favourite-colour"), so a later remember replaces it.'),
        kind: z.string().min(1).optional().describe('What sort of fact it is, e.g. "preference".'),
      }),
      execute: async ({ content, key, kind }): Promise<MemoryOutput> =>
        memoryOutput(await provider.memory.write({ content, scope, source, ...(key === undefined ? {} : { key }), ...(kind === undefined ? {} : { kind }) })),
    }),

    recall: tool({
      description: 'Recall remembered facts relevant to a question; without a query, the most recent ones.',
      inputSchema: z.object({
        query: z.string().optional().describe('Words or a question to look for.'),
        limit: z.number().int().min(1).max(100).optional().describe('Most facts to return.'),
      }),
      execute: async ({ query, limit }): Promise<{ memories: Array<MemoryOutput & { score: number }> }> => {
        // A model asks in whole questions: any matching word counts, ranked by relevance.
        const hits = await provider.memory.recall({ scope, limit: limit ?? recallLimit, match: 'any', ...(query ? { query } : {}) });
        return { memories: hits.map((hit) => ({ ...memoryOutput(hit), score: hit.score })) };
      },
    }),

    update: tool({
      description: 'Change the content of a remembered fact, by its id.',
      inputSchema: z.object({ id: z.string().min(1), content: z.string().min(1).describe('The new content.') }),
      execute: async ({ id, content }): Promise<MemoryOutput> => {
        await ownItem(id);
        return memoryOutput(await provider.memory.update(id, { content }));
      },
    }),

    forget: tool({
      description: 'Forget a remembered fact, by its id.',
      inputSchema: z.object({ id: z.string().min(1) }),
      execute: async ({ id }): Promise<{ forgotten: string }> => {
        await ownItem(id);
        await provider.memory.delete(id);
        return { forgotten: id };
      },
    }),

    searchSkills: tool({
      description: 'Search the known skills (reusable procedures) for a task, best match first, with how often each worked.',
      inputSchema: z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(50).optional() }),
      execute: async ({ query, limit }): Promise<{ skills: SkillOutput[] }> => {
        const skills = await provider.skills.search(query, { scope, includeParentScopes: true, order: 'relevance', limit: limit ?? 5 });
        return { skills: skills.map(skillOutput) };
      },
    }),

    recordSkillOutcome: tool({
      description: 'Record whether following a skill worked, so better skills rank higher.',
      inputSchema: z.object({ slug: z.string().min(1), success: z.boolean() }),
      execute: async ({ slug, success }): Promise<SkillOutput> => skillOutput(await provider.skills.recordOutcome(slug, { success, scope })),
    }),
  };
}
