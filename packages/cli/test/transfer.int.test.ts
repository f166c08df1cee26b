import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, failureLine, tempDir } from './helpers.js';
import { cliAsync, fails, ok, okJson } from './in-process.js';
import { trailerFor, writeExport } from './generate.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

describe('agentstate export and import', () => {
  const source = tmp.path('source.db');
  const exported = tmp.path('source.jsonl');
  let lines: string[] = [];

  beforeAll(async () => {
    await writeExport(exported, 300);
    ok(['import', exported, '--db', source]);
    lines = readFileSync(exported, 'utf8').trim().split('\n').slice(0, -1);
  });

  /** An export of `events` lines, ended by their valid trailer. */
  const withTrailer = (events: readonly string[]): string => {
    const text = events.map((l) => `${l}\n`).join('');
    return `${text}${trailerFor(text)}`;
  };

  it('exports the log to stdout as canonical JSON Lines and a trailer, identical to what was imported', () => {
    const out = ok(['export', '--db', source]);
    expect(out).toBe(withTrailer(lines));
    expect(out).toBe(readFileSync(exported, 'utf8'));
    expect(JSON.parse(lines[0]!)).toMatchObject({ stream: 'state', seq: 1, actor: 'generator' });
  });

  it('exports to a file, refusing to replace one without --force', () => {
    const file = tmp.path('out.jsonl');
    const report = okJson(['export', '--out', file, '--db', source]);
    expect(report).toMatchObject({ out: file, events: 300 });
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(exported, 'utf8'));
    expect(fails(1, ['export', '--out', file, '--db', source])).toContain('exists');
    expect(ok(['export', '--out', file, '--force', '--db', source])).toMatch(/^exported 300 events to /);
  });

  it('imports into a new database that verifies and equals the source byte for byte', () => {
    const copy = tmp.path('copy.db');
    const report = okJson(['import', '-', '--db', copy], { input: readFileSync(exported, 'utf8') });
    expect(report).toMatchObject({ db: copy, events: 300 });
    expect(ok(['snapshot', '--print', '--db', copy])).toBe(ok(['snapshot', '--print', '--db', source]));
    expect(okJson(['verify', '--db', copy])).toMatchObject({ ok: true, events: 300, sha256: report.sha256 });
    expect(ok(['export', '--db', copy])).toBe(withTrailer(lines));
  });

  it('exports an empty log as the trailer alone, which imports as an empty database', () => {
    const empty = tmp.path('empty.db');
    expect(okJson(['import', '-', '--db', empty], { input: withTrailer([]) })).toMatchObject({ events: 0, trailer: true });
    expect(okJson(['stats', '--db', empty])).toMatchObject({ head: 0 });
    expect(ok(['export', '--db', empty])).toBe(withTrailer([]));
  });

  const broken: Array<[string, (l: string[]) => string[], RegExp]> = [
    ['a gap in the seqs', (l) => [l[0]!, l[2]!], /line 2: expected seq 2, found 3/],
    ['a repeated seq', (l) => [l[0]!, l[1]!, l[1]!], /line 3: expected seq 3, found 2/],
    ['not starting at 1', (l) => l.slice(1, 5), /line 1: expected seq 1/],
    ['a line that is not JSON', (l) => [l[0]!, '{"seq": 2,'], /line 2: not valid JSON/],
    ['a malformed payload', (l) => [l[0]!, l[1]!.replace('"role":"', '"role":"x')], /line 2: .*payload/],
    ['an unknown event type', (l) => [l[0]!.replace('session.created', 'session.exploded')], /line 1: unknown event type/],
    ['another stream', (l) => [l[0]!.replace('"stream":"state"', '"stream":"audit"')], /line 1: expected stream "state"/],
    ['an unknown field', (l) => [l[0]!.replace('{', '{"extra":1,')], /line 1: unknown field "extra"/],
    ['a bad time', (l) => [l[0]!.replace(/"time":"[^"]+"/, '"time":"yesterday"')], /line 1: "time" must be an instant/],
    ['an array', () => ['[]'], /line 1: expected a JSON object/],
  ];

  for (const [what, mangle, message] of broken) {
    it.concurrent(`refuses ${what} with exit 1, and creates nothing`, async () => {
      const target = tmp.path(`refused-${what.replace(/\W+/g, '-')}.db`);
      const args = ['import', '-', '--db', target];
      const r = await cliAsync(args, { input: withTrailer(mangle(lines)) });
      expect(failureLine(r, 1, args)).toMatch(message);
      expect(existsSync(target)).toBe(false);
      expect(readdirSync(tmp.dir).filter((f) => f.startsWith(`refused-${what.replace(/\W+/g, '-')}.db.importing`))).toEqual([]);
    });
  }

  const untrailed: Array<[string, (l: string[]) => string, RegExp]> = [
    ['an empty file', () => '', /^agentstate: the export is empty: it has no trailer line, .*--allow-untrailed/],
    [
      'a file cut at a line boundary',
      (l) => `${withTrailer(l).split('\n').slice(0, 120).join('\n')}\n`,
      /the export ends after 120 events without a trailer line, so it may have been cut short/,
    ],
    ['a file cut inside its trailer', (l) => withTrailer(l).slice(0, -20), /line 301: not valid JSON/],
    [
      'a trailer with the wrong count',
      (l) => withTrailer(l).replace('"events":300', '"events":299'),
      /line 301: the trailer counts 299 events but 300 precede it/,
    ],
    [
      'a trailer with the wrong digest',
      (l) => withTrailer(l).replace(/"sha256":"[0-9a-f]{64}"/, `"sha256":"${'0'.repeat(64)}"`),
      /line 301: the sha256 of the trailer does not match/,
    ],
    [
      'an edited event under a valid-looking trailer',
      (l) => withTrailer(l).replace('"actor":"generator"', '"actor":"generatoR"'),
      /line 301: the sha256 of the trailer does not match/,
    ],
    ['a line after the trailer', (l) => `${withTrailer(l)}${l[0]}\n`, /line 302: a line after the trailer \(line 301\)/],
    [
      'a trailer with extra fields',
      (l) => withTrailer(l).replace('{"trailer":{', '{"trailer":{"format":1,'),
      /line 301: "trailer" must hold exactly "events" and "sha256"/,
    ],
    ['a blank line', (l) => withTrailer(l).replace('\n', '\n\n'), /line 2: a blank line/],
  ];

  for (const [what, make, message] of untrailed) {
    it.concurrent(`refuses ${what}, saying why, and creates nothing`, async () => {
      const target = tmp.path(`untrailed-${what.replace(/\W+/g, '-')}.db`);
      const args = ['import', '-', '--db', target];
      expect(failureLine(await cliAsync(args, { input: make(lines) }), 1, args)).toMatch(message);
      expect(existsSync(target)).toBe(false);
    });
  }

  it('imports an export made before trailers existed with --allow-untrailed, after the same checks', () => {
    const old = lines.map((l) => `${l}\n`).join('');
    const target = tmp.path('old.db');
    expect(fails(1, ['import', '-', '--db', target], { input: old })).toContain('--allow-untrailed');
    expect(fails(1, ['import', '-', '--allow-untrailed', '--db', target], { input: old.replace('"seq":2,', '"seq":3,') })).toContain(
      'line 2: expected seq 2, found 3',
    );
    expect(okJson(['import', '-', '--allow-untrailed', '--db', target], { input: old })).toMatchObject({ events: 300, trailer: false });
    expect(ok(['export', '--db', target])).toBe(withTrailer(lines));
    expect(
      fails(1, ['import', '-', '--allow-untrailed', '--db', tmp.path('old-cut.db')], { input: withTrailer(lines).replace('"events":300', '"events":3') }),
    ).toContain('the trailer counts 3 events');
  });

  it('refuses to import over an existing database, or from a missing file', () => {
    expect(fails(1, ['import', exported, '--db', source])).toContain('already exists');
    const target = tmp.path('never.db');
    expect(fails(1, ['import', tmp.path('missing.jsonl'), '--db', target])).toContain('cannot read');
    expect(existsSync(target)).toBe(false);
  });

  it('round-trips a database through a file: export, import, verify', () => {
    const file = tmp.path('again.jsonl');
    const target = tmp.path('again.db');
    ok(['export', '-o', file, '--db', source]);
    writeFileSync(tmp.path('note.txt'), 'unrelated');
    ok(['import', file, '--db', target]);
    expect(ok(['verify', '--db', target])).toMatch(/^ok: the tables equal a replay of all 300 events, byte for byte\n/);
  });

  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)('draws a progress bar on a terminal only', () => {
    const onTerminal = tmp.path('terminal.db');
    const typescript = spawnSync('script', ['-qfec', `"${process.execPath}" "${BIN}" import "${exported}" --db "${onTerminal}"`, '/dev/null'], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(typescript.status).toBe(0);
    expect(typescript.stdout).toMatch(/importing \[#+-*\] +\d+% [\d.]+ MiB\/[\d.]+ MiB/);
    const piped = tmp.path('piped.db');
    const r = spawnSync(process.execPath, [BIN, 'import', exported, '--db', piped], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^imported 300 events into /);
  });
});
