/** The value of `map` at `key`, made by `make` and stored there on first use. */
export function entryFor<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const found = map.get(key);
  if (found !== undefined) return found;
  const made = make();
  map.set(key, made);
  return made;
}
