/**
 * The row checksum is part of the file format: rows written by any version
 * must check the same. It is SHA-256 of the position and the SHA-1 of the
 * row's other columns joined by NUL, null written as U+0001, whatever way the
 * bytes are fed to the hash; rows of the earlier whole-row format still check.
 */
import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { storedChecksum } from '@agentstate/core/backend';
import { rowChecksum } from '../src/index.js';

const row = {
  stream: 'state',
  seq: 42,
  type: 'checkpoint.saved',
  time: '2026-01-01T00:00:00.000Z',
  schema_version: 1,
  payload: JSON.stringify({ text: 'café ☕ 𝄞 "quoted"', n: -1.5 }),
  actor: null,
  trace_id: 'trace',
  span_id: null,
  causation_id: '',
  origin_instance_id: 'instance',
  principal: null,
};

describe('rowChecksum', () => {
  const columns = ['state', '42', 'checkpoint.saved', '2026-01-01T00:00:00.000Z', '1', row.payload, '\u0001', 'trace', '\u0001', '', 'instance', '\u0001'];

  it('is SHA-256 of the seq and the SHA-1 of the other columns joined by NUL, null as U+0001, prefixed 3:', () => {
    const rest = hash('sha1', columns.filter((_, i) => i !== 1).join('\u0000'), 'base64');
    expect(rowChecksum(row)).toBe(`3:${hash('sha256', `42:${rest}`, 'base64')}`);
    expect(storedChecksum({ ...row, checksum: rowChecksum(row) })).toBe(rowChecksum(row));
  });

  it('checks a row of the earlier format, SHA-1 of every column prefixed 2:, as it was written', () => {
    const earlier = `2:${hash('sha1', columns.join('\u0000'), 'base64')}`;
    expect(storedChecksum({ ...row, checksum: earlier })).toBe(earlier);
    expect(storedChecksum({ ...row, seq: 43, checksum: earlier })).not.toBe(earlier);
  });

  it('covers the position', () => {
    expect(rowChecksum({ ...row, seq: 43 })).not.toBe(rowChecksum(row));
  });

  it('tells an empty text from a null', () => {
    expect(rowChecksum({ ...row, causation_id: null })).not.toBe(rowChecksum(row));
  });
});
