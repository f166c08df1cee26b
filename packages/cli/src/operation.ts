/** The `--operation-id` flag every write command takes (docs/contract.md §4, idempotent writes). */
import type { Command } from 'commander';

/** Flags of a write command. */
export interface OperationFlags {
  operationId?: string;
}

/** Adds `--operation-id <id>` to a write command. */
export function withOperationId(command: Command): Command {
  return command.option(
    '--operation-id <id>',
    'make the write idempotent: run again with this id and the same input, it prints the first result and writes nothing',
  );
}
