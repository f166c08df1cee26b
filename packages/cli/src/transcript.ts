/**
 * How a transcript reads in the terminal: one block per turn, its parts
 * shown by type (reasoning, tool calls and results, files, data), so that a
 * structured turn is readable without `--json`; search hits read the same way.
 */
import type { ContextWindow, JsonValue, Part, Turn, TurnHit } from '@agentstate/core';
import { print, shortTime } from './output.js';

/** Longest JSON shown inline for a tool input, output or data part. */
const JSON_PREVIEW = 400;

function indent(text: string, prefix = '  '): string {
  return text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

function preview(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > JSON_PREVIEW ? `${text.slice(0, JSON_PREVIEW)}… (${text.length} characters)` : text;
}

/** One part as the lines it reads as. */
export function renderPart(part: Part): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'reasoning':
      return `[reasoning]\n${indent(part.text, '| ')}`;
    case 'tool-call':
      return `[tool call ${part.toolName} · ${part.callId}] ${preview(part.input)}`;
    case 'tool-result':
      return `[tool result ${part.toolName} · ${part.callId}${part.isError ? ' · error' : ''}] ${preview(part.output)}`;
    case 'file': {
      const name = part.filename ? ` ${part.filename}` : '';
      const where = part.url !== undefined ? part.url : `${part.data?.length ?? 0} base64 characters inline`;
      return `[file ${part.mediaType}${name}] ${where}`;
    }
    case 'data':
      return `[data ${part.name}] ${preview(part.data)}`;
  }
}

/**
 * The body of a turn: its parts, or its content when it has no parts or
 * only the one text part the content made.
 */
export function renderTurnBody(turn: Turn): string {
  const plain = turn.parts.length === 0 || (turn.parts.length === 1 && turn.parts[0]!.type === 'text' && turn.parts[0]!.text === turn.content);
  return plain ? turn.content : turn.parts.map(renderPart).join('\n');
}

/** A turn as a block: its seq, role and time after `mark`, then its body, indented. */
const block = (t: Turn, mark = ''): string => `${mark}#${t.seq} ${t.role} · ${shortTime(t.createdAt)}\n${indent(renderTurnBody(t))}`;

/** Prints a transcript, one block per turn. */
export function printTranscript(turns: readonly Turn[]): void {
  print(turns.length === 0 ? '(no turns)' : turns.map((t) => block(t)).join('\n\n'));
}

/** A search hit as a block: its session and score, then the turns around it, the hit marked. */
function hitBlock(h: TurnHit): string {
  const head = `session ${h.session.id}${h.session.title ? ` (${h.session.title})` : ''} · score ${h.score.toFixed(3)}`;
  return [head, ...h.before.map((t) => block(t, '  ')), block(h.turn, '> '), ...h.after.map((t) => block(t, '  '))].join('\n');
}

/** Prints search hits: each turn with its session, score and the turns around it. */
export function printHits(hits: readonly TurnHit[]): void {
  print(hits.length === 0 ? '(no turns found)' : hits.map(hitBlock).join('\n\n'));
}

/** Prints a context window: its tokens, then each entry (working memory, memory, summary, turn) in order, each marked with its tokens. */
export function printContext(window: ContextWindow): void {
  print(`${window.tokens} of ${window.maxTokens} tokens (${window.counter})`);
  for (const entry of window.entries) {
    const mark = `[${entry.tokens}] `;
    print();
    if (entry.kind === 'turn') print(block(entry.turn, mark));
    else if (entry.kind === 'summary') print(`${mark}summary through turn ${entry.summary.through}\n${indent(entry.summary.text)}`);
    else print(`${mark}${entry.kind === 'working' ? 'working memory' : 'memory'} ${entry.memory.id}\n${indent(entry.memory.content)}`);
  }
}
