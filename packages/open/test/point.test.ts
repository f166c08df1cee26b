// The one reading of a point that the CLI and the MCP server share.
import { parsePoint } from '@agentstate/open';
import { describe, expect, it } from 'vitest';

describe('parsePoint', () => {
  it('reads a number or digits as a seq, and anything else as an instant', () => {
    expect(parsePoint(7)).toEqual({ seq: 7 });
    expect(parsePoint('42')).toEqual({ seq: 42 });
    expect(parsePoint('2026-11-29T16:54:02Z')).toEqual({ time: '2026-11-29T16:54:02Z' });
    expect(parsePoint('-1')).toEqual({ time: '-1' });
  });
});
