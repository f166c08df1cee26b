/**
 * A turn of a transcript resource as Markdown: every part in order — text,
 * reasoning, tool calls with their input, tool results with their output,
 * files and data — so a turn made of parts alone does not read as empty.
 * Its `content` is shown too when it says something the parts do not (core's
 * content rendering rule decides, `renderPartsText`).
 */
import type { JsonValue, Part, Turn } from '@agentstate/core';
import { renderPartsText } from '@agentstate/core';

/** A fenced block that no backtick run inside `text` can close early. */
function fenced(text: string, info = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

/** A JSON value in a fence: text as it is, anything else as indented JSON. */
function value(v: JsonValue): string {
  return typeof v === 'string' ? fenced(v) : fenced(JSON.stringify(v, null, 2), 'json');
}

/** One part as Markdown. */
export function partMarkdown(part: Part): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'reasoning':
      return `**reasoning**\n\n${part.text
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n')}`;
    case 'tool-call':
      return `**tool call** \`${part.toolName}\` (${part.callId})\n\n${value(part.input)}`;
    case 'tool-result':
      return `**tool result** \`${part.toolName}\` (${part.callId})${part.isError ? ', failed' : ''}\n\n${value(part.output)}`;
    case 'file': {
      const name = part.filename ? ` ${part.filename}` : '';
      return `**file** ${part.mediaType}${name}: ${part.url ?? `${part.data?.length ?? 0} base64 characters inline`}`;
    }
    case 'data':
      return `**data** \`${part.name}\`\n\n${value(part.data)}`;
  }
}

/** The body of a turn: its content when the parts do not render to it, then every part. */
export function turnMarkdown(turn: Turn): string {
  const content = turn.content !== renderPartsText(turn.parts) && turn.content !== '' ? [turn.content] : [];
  return [...content, ...turn.parts.map(partMarkdown)].join('\n\n');
}
