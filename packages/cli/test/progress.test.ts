/**
 * The fold an open runs is told of on a terminal as a bar redrawn in place
 * and cleared at the end, from 10,000 events; below that, nothing.
 */
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { withRun } from '../src/io.js';
import { foldProgress } from '../src/progress.js';

/** What `fold` writes to a stderr that says it is a terminal. */
async function onTerminal(fold: (progress: ReturnType<typeof foldProgress>) => void): Promise<string> {
  let text = '';
  const stderr = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    }),
    { isTTY: true },
  );
  const stdout = new Writable({ write: (_chunk, _encoding, done) => done() });
  await withRun({ stdout, stderr, stdin: Readable.from([]), env: {}, cwd: '/' }, async () => fold(foldProgress()));
  return text;
}

describe('foldProgress on a terminal', () => {
  it('draws a bar from 10,000 events and clears it at the end', async () => {
    const text = await onTerminal((p) => {
      p.onProgress(0, 20_000);
      p.onProgress(20_000, 20_000);
      p.end(true);
    });
    // Redrawn at most ten times a second: the end is drawn too only if the machine paused between the calls.
    expect(text.startsWith('\rfolding the log into the tables [------------------------]   0% 0/20,000\u001b[K')).toBe(true);
    expect(text.endsWith('\r\u001b[K')).toBe(true);
    expect(text).not.toContain('\n');
  });

  it('says nothing for a shorter fold', async () => {
    const text = await onTerminal((p) => {
      p.onProgress(0, 9_999);
      p.onProgress(9_999, 9_999);
      p.end(true);
    });
    expect(text).toBe('');
  });
});
