/** An export read back: what the checks that carry records through an export compare with the live state. */
import type { Log, Snapshot } from '@agentstate/core';
import { exportLog } from '@agentstate/core';
import { ExportReader } from '@agentstate/core/backend';

/** The state an export of `log` folds to, read line by line as an import reads it. */
export async function readExport(log: Log): Promise<Snapshot> {
  let text = '';
  await exportLog(log, (chunk) => {
    text += chunk;
  });
  const reader = new ExportReader();
  for (const line of text.split('\n').filter((l) => l !== '')) reader.read(line);
  reader.finish();
  return reader.state.capture();
}
