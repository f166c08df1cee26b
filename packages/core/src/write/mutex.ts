/**
 * A FIFO async mutex: callers run one at a time, in arrival order. It keeps
 * concurrent async callers of one provider from interleaving between look-up,
 * stamp, append and project.
 */
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `fn` once every earlier caller has finished. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
