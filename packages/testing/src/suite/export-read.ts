/** An export read back: what the checks that carry records through an export compare with the live state. */
import { exportLog, type ExportOptions, type Log, type Snapshot } from '@agentstate/core';
import { ExportReader } from '@agentstate/core/backend';

/** The text of an export of `log`, as a file would hold it. */
export async function exportText(log: Log, options?: ExportOptions): Promise<string> {
  const chunks: string[] = [];
  await exportLog(log, (chunk) => void chunks.push(chunk), options);
  return chunks.join('');
}

/** The lines of an export of `log` (the trailer last), as a file would hold them. */
export async function exportLines(log: Log, options?: ExportOptions): Promise<string[]> {
  return (await exportText(log, options)).split('\n').filter((l) => l !== '');
}

/** The state an export of `log` folds to, read line by line as an import reads it. */
export async function readExport(log: Log, options?: ExportOptions): Promise<Snapshot> {
  const reader = new ExportReader();
  for (const line of await exportLines(log, options)) reader.read(line);
  reader.finish();
  return reader.state.capture();
}
