/**
 * Resources for browsing: a session's transcript and a skill, as Markdown,
 * under the same scope rules as the tools. Listing shows the bound scope's
 * newest sessions and the skills visible from it.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Session, Skill, Turn } from '@agentstate/core';
import { NotFoundError, ValidationError, describeScope, pageSessions, sameScope } from '@agentstate/core';
import { findSkill } from './tools/skills.js';
import { readableSession } from './tools/sessions.js';
import { turnMarkdown } from './turn-markdown.js';
import type { ToolContext } from './tools/context.js';

/** The most sessions a resource listing shows (the newest); older ones stay readable by URI. */
export const LISTED_SESSIONS = 100;

/** The URI of a session's transcript. */
export function sessionUri(id: string): string {
  return `agentstate://sessions/${encodeURIComponent(id)}`;
}

/** The URI of a skill, by slug or id. */
export function skillUri(slugOrId: string): string {
  return `agentstate://skills/${encodeURIComponent(slugOrId)}`;
}

function variable(value: string | string[] | undefined, name: string): string {
  const raw = Array.isArray(value) ? value.join(',') : (value ?? '');
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ValidationError(name, 'is not a valid URI component');
  }
}

/**
 * The JSON-RPC error code MCP specifies for reading a resource that does not
 * exist ("Resource not found"); the SDK's `ErrorCode` has no member for it.
 */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * Runs a resource read, answering the protocol's errors rather than the
 * SDK's default `-32603` (internal error): a record that does not exist, or
 * that this server may not read, is "Resource not found" (`-32002`, with the
 * URI as data), and a malformed URI variable is invalid params (`-32602`).
 */
async function reading<T>(uri: URL, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof NotFoundError) throw new McpError(RESOURCE_NOT_FOUND, error.message, { uri: uri.href });
    if (error instanceof ValidationError) throw new McpError(ErrorCode.InvalidParams, error.message, { uri: uri.href });
    throw error;
  }
}

/** A transcript as Markdown: each turn with every part (`turnMarkdown`). */
export function transcriptMarkdown(session: Session, turns: Turn[]): string {
  const head = [`# ${session.title || 'Untitled session'}`, '', `- id: ${session.id}`];
  if (session.model) head.push(`- model: ${session.model}`);
  head.push(`- created: ${session.createdAt}`, `- updated: ${session.updatedAt}`, `- turns: ${turns.length}`);
  const body = turns.map((t) => `## ${t.seq}. ${t.role} (${t.createdAt})\n\n${turnMarkdown(t)}`);
  return [...head, '', ...body.flatMap((b) => [b, ''])].join('\n');
}

/** A skill as Markdown. */
export function skillMarkdown(skill: Skill): string {
  const lines = [
    `# ${skill.name || skill.slug}`,
    '',
    `- slug: ${skill.slug}`,
    `- id: ${skill.id}`,
    `- scope: ${describeScope(skill.scope)}`,
    `- version: ${skill.version}`,
    `- outcomes: ${skill.wins} wins in ${skill.uses} uses`,
  ];
  if (skill.tags.length > 0) lines.push(`- tags: ${skill.tags.join(', ')}`);
  lines.push('', skill.body);
  if (skill.check) lines.push('', '## Check', '', '```sh', skill.check, '```');
  return `${lines.join('\n')}\n`;
}

/** Registers the transcript and skill resources on `server`. */
export function registerResources(server: McpServer, ctx: ToolContext): void {
  const { provider, policy } = ctx;

  server.registerResource(
    'session-transcript',
    new ResourceTemplate('agentstate://sessions/{sessionId}', {
      list: async () => {
        const listing = await provider.sessions.list({ scope: policy.bound });
        const sessions = pageSessions(listing, { method: 'mcp.resources.list', query: {} }, { order: 'newest', limit: LISTED_SESSIONS });
        return {
          resources: sessions.map((s) => ({ uri: sessionUri(s.id), name: s.title || s.id, mimeType: 'text/markdown' })),
        };
      },
    }),
    { title: 'Session transcript', description: 'A session and its turns, in order.', mimeType: 'text/markdown' },
    (uri, vars) =>
      reading(uri, async () => {
        const id = variable(vars.sessionId, 'sessionId');
        const session = await readableSession(ctx, id);
        const turns = await provider.sessions.turns(id);
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: transcriptMarkdown(session, turns) }] };
      }),
  );

  server.registerResource(
    'skill',
    new ResourceTemplate('agentstate://skills/{skill}', {
      list: async () => {
        const scopes = policy.readScopes(policy.bound, policy.readParents);
        const seen = new Set<string>();
        const resources = [];
        for (const scope of scopes) {
          for (const skill of await provider.skills.list({ scope })) {
            if (seen.has(skill.slug)) continue;
            seen.add(skill.slug);
            const inherited = !sameScope(scope, policy.bound);
            resources.push({
              uri: skillUri(skill.slug),
              name: skill.name || skill.slug,
              description: inherited ? `from scope ${describeScope(skill.scope)}` : undefined,
              mimeType: 'text/markdown',
            });
          }
        }
        return { resources };
      },
    }),
    { title: 'Skill', description: 'A skill: its procedure, tags, check command and outcomes.', mimeType: 'text/markdown' },
    (uri, vars) =>
      reading(uri, async () => {
        const skill = await findSkill(ctx, variable(vars.skill, 'skill'), undefined);
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: skillMarkdown(skill) }] };
      }),
  );
}
