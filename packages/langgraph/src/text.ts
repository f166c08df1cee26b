/**
 * The text a store item is indexed by: LangGraph's `index.fields` rules, as
 * its `InMemoryStore` applies them, so a value indexes the same text here as
 * there. `$` is the whole value as indented JSON; a path walks keys
 * (`a.b`), array items (`[0]`, `[-1]`, `[*]`), every field (`*`) and a choice
 * of fields (`{a,b.c}`); a string, number or boolean is its text, an object
 * or array its indented JSON.
 */

/** Splits a field path into its steps: `'a[*].b'` → `['a', '[*]', 'b']`, `'{x,y.z}'` one step. */
export function tokenizePath(path: string): string[] {
  const tokens: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i += 1) {
    const char = path[i]!;
    if (char !== '[' && char !== '{' && char !== '.') {
      current += char;
      continue;
    }
    if (current !== '') tokens.push(current);
    current = '';
    if (char === '.') continue;
    // A bracketed step runs to its matching close (or the end), nested pairs of its own kind included.
    const close = char === '[' ? ']' : '}';
    let depth = 0;
    let end = i;
    do {
      depth += path[end] === char ? 1 : path[end] === close ? -1 : 0;
      end += 1;
    } while (end < path.length && depth > 0);
    tokens.push(path.slice(i, end));
    i = end - 1;
  }
  if (current !== '') tokens.push(current);
  return tokens;
}

const json = (value: unknown): string => JSON.stringify(value, null, 2);

/** The text of a value reached at the end of a path, or nothing for null. */
function leafText(value: unknown): string[] {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (value !== null && typeof value === 'object') return [json(value)];
  return [];
}

function walk(value: unknown, tokens: readonly string[], pos: number): string[] {
  if (pos >= tokens.length) return leafText(value);
  const token = tokens[pos]!;
  if (token.startsWith('[') && token.endsWith(']')) {
    if (!Array.isArray(value)) return [];
    const index = token.slice(1, -1);
    if (index === '*') return value.flatMap((item) => walk(item, tokens, pos + 1));
    let at = Number.parseInt(index, 10);
    if (at < 0) at += value.length;
    return at >= 0 && at < value.length ? walk(value[at], tokens, pos + 1) : [];
  }
  if (token.startsWith('{') && token.endsWith('}')) {
    if (value === null || typeof value !== 'object') return [];
    return token
      .slice(1, -1)
      .split(',')
      .flatMap((field) => {
        let current: unknown = value;
        for (const step of tokenizePath(field.trim())) {
          if (current === null || typeof current !== 'object' || !Object.hasOwn(current, step)) return [];
          current = (current as Record<string, unknown>)[step];
        }
        // Unlike a path's end, a chosen field that holds null reads as the JSON `null`, as in LangGraph.
        return current === null ? [json(null)] : leafText(current);
      });
  }
  if (token === '*') {
    if (Array.isArray(value)) return value.flatMap((item) => walk(item, tokens, pos + 1));
    if (value !== null && typeof value === 'object') return Object.values(value).flatMap((item) => walk(item, tokens, pos + 1));
    return [];
  }
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, token)) return walk((value as Record<string, unknown>)[token], tokens, pos + 1);
  return [];
}

/** The texts at one field path of `value` (`$`: the whole value). */
export function textsAtPath(value: unknown, path: string): string[] {
  const tokens = tokenizePath(path);
  // LangGraph reads a path that starts at the root (`$`, `$.a`) as the whole value.
  if (tokens.length === 0 || tokens[0] === '$') return [json(value)];
  return walk(value, tokens, 0);
}

/** The text to index for `value` over `fields`, one text per line; `''` when none of them holds text. */
export function indexText(value: Record<string, unknown>, fields: readonly string[]): string {
  return fields
    .flatMap((field) => textsAtPath(value, field))
    .filter((text) => text !== '')
    .join('\n');
}
