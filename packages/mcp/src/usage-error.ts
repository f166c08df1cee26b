/** A mistake in how the server was started: bad flags, unsafe options. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
