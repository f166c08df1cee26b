/** Building statements with numbered parameters (`$1`, `$2`, …) piece by piece. */

/** Collects parameter values; {@link add} returns the placeholder of the value. */
export class Params {
  readonly values: unknown[] = [];

  /** Adds a value and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
