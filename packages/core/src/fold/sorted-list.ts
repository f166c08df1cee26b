/**
 * An array kept sorted by a total order, with binary-search insert and
 * remove: appends in order (the common case) are O(1) amortised.
 */
export class SortedList<T> {
  readonly items: T[] = [];

  constructor(private readonly compare: (a: T, b: T) => number) {}

  /** Inserts `item` at its place. */
  insert(item: T): void {
    const last = this.items[this.items.length - 1];
    if (last === undefined || this.compare(last, item) <= 0) {
      this.items.push(item);
      return;
    }
    this.items.splice(this.#lowerBound(item), 0, item);
  }

  /** Removes the element equal to `item` under the order; false when absent. */
  remove(item: T): boolean {
    const i = this.#lowerBound(item);
    if (i < this.items.length && this.compare(this.items[i]!, item) === 0) {
      this.items.splice(i, 1);
      return true;
    }
    return false;
  }

  /**
   * Replaces `old` by `item`: in place when they are equal under the order
   * (one binary search, no shifting), else by a remove and an insert.
   */
  replace(old: T, item: T): void {
    if (this.compare(old, item) === 0) {
      const i = this.#lowerBound(old);
      if (i < this.items.length && this.compare(this.items[i]!, old) === 0) {
        this.items[i] = item;
        return;
      }
    } else this.remove(old);
    this.insert(item);
  }

  /** Replaces the element equal to `item` under the order, or inserts it. */
  upsert(item: T): void {
    const i = this.#lowerBound(item);
    if (i < this.items.length && this.compare(this.items[i]!, item) === 0) this.items[i] = item;
    else this.items.splice(i, 0, item);
  }

  #lowerBound(item: T): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.items[mid]!, item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
