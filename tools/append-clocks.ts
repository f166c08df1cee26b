/**
 * A state an earlier build folded, as today's fold gives it: each turn's tombstone with the clock of the turn's
 * append (docs/contract.md §12, "Merge"), which a tombstone written before tombstones kept it lacks. For the tests
 * of fixtures written by released versions, whose recorded states predate that rule.
 */

type Appended = { id: string; updatedHlc: unknown };

/** `folded` with each tombstone given the clock of its turn's append, read from the event among `payloads` that appended it. */
export function givenAppendClocks<S extends { turns: { id: string; deleted: boolean }[] }>(folded: S, payloads: readonly unknown[]): S {
  const clocks = new Map<string, unknown>();
  for (const payload of payloads) {
    // An append carries its turn; a replaced suffix, its added turns.
    const { turn, added = [] } = payload as { turn?: Appended; added?: Appended[] };
    for (const t of turn ? [turn] : added) clocks.set(t.id, t.updatedHlc);
  }
  return { ...folded, turns: folded.turns.map((t) => (t.deleted ? { ...t, appendedHlc: clocks.get(t.id) } : t)) };
}
