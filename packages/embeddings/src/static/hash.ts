/** FNV-1a (32-bit) over the UTF-16 code units of `text[from, to)`. */
export function fnv1a(text: string, from = 0, to = text.length): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
