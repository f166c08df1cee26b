/**
 * The row checksum is part of the file format: rows written by any version
 * must check the same. It is SHA-1 over the row's columns joined by NUL, null
 * written as U+0001, whatever way the bytes are fed to the hash.
 */
import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
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
  it('is SHA-1 of the columns joined by NUL, null as U+0001, prefixed 2:', () => {
    const text = ['state', '42', 'checkpoint.saved', '2026-01-01T00:00:00.000Z', '1', row.payload, '\u0001', 'trace', '\u0001', '', 'instance', '\u0001'].join(
      '\u0000',
    );
    expect(rowChecksum(row)).toBe(`2:${hash('sha1', text, 'base64')}`);
  });

  it('tells an empty text from a null', () => {
    expect(rowChecksum({ ...row, causation_id: null })).not.toBe(rowChecksum(row));
  });
});
