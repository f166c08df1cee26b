/** The views of the page and the one the address's hash names (so a reload keeps the view). */
export const VIEWS = ['sessions', 'memory', 'skills', 'timeline', 'health'] as const;
export type View = (typeof VIEWS)[number];

/** The view `hash` names; the sessions view when it names none. */
export function viewOf(hash: string): View {
  const name = hash.replace(/^#\/?/, '').split('/')[0];
  return (VIEWS as readonly string[]).includes(name ?? '') ? (name as View) : 'sessions';
}
