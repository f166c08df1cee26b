/** An export read back: what the checks that carry records through an export compare with the live state. */
import type { ExportOptions, Log, Snapshot } from '@agentstate/core';
import { exportLog } from '@agentstate/core';
import { ExportReader } from '@agentstate/core/backend';

/** The lines of an export of `log` (the trailer last), as a file would hold them. */
export async function exportLines(log: Log, options?: ExportOptions): Promise<string[]> {
  let text = '';
  await exportLog(
    log,
    (chunk) => {
      text += chunk;
    },
    options,
  );
  return text.split('\n').filter((l) => l !== '');
}

/** The state an export of `log` folds to, read line by line as an import reads it. */
export async function readExport(log: Log, options?: ExportOptions): Promise<Snapshot> {
  const reader = new ExportReader();
  for (const line of await exportLines(log, options)) reader.read(line);
  reader.finish();
  return reader.state.capture();
}
