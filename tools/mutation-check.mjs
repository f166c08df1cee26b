#!/usr/bin/env node
/**
 * Removes one rule of the Stamper or the projection at a time and checks that
 * the test suite notices (issue #2: "removing any one rule makes at least one
 * test fail"). Each mutation rewrites one source line, rebuilds core, runs the
 * core and conformance tests, and restores the file. Not part of CI: run by
 * hand with `node tools/mutation-check.mjs` (takes several minutes).
 */
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const STAMPER = 'packages/core/src/write/stamper.ts';
const STATE = 'packages/core/src/fold/state.ts';

/** [file, rule removed, text to find, replacement] */
const MUTATIONS = [
  [
    STAMPER,
    'createSession refuses a taken id',
    'if (existing) throw new ConflictError(`session id already taken',
    'if (false) throw new ConflictError(`session id already taken',
  ],
  [STAMPER, 'turn seq is last + 1', 'seq: lastSeq + 1,', 'seq: lastSeq,'],
  [
    STAMPER,
    'turn needs a live session',
    "if (!session || session.deleted) throw new NotFoundError('session', draft.sessionId);",
    "if (!session) throw new NotFoundError('session', draft.sessionId);",
  ],
  [STAMPER, 'taken turn ids conflict', 'if (turnIdTaken && draft.id !== undefined)', 'if (false)'],
  [STAMPER, 'session updatedAt never moves back', 'updatedAt: later(session.updatedAt, createdAt)', 'updatedAt: createdAt'],
  [
    STAMPER,
    'delete needs a live session',
    "if (!session || session.deleted) throw new NotFoundError('session', id);",
    "if (!session) throw new NotFoundError('session', id);",
  ],
  [STAMPER, 'CAS on syncVersion', 'if (expected !== 0 && expected !== stored?.syncVersion)', 'if (expected !== 0 && !stored)'],
  [
    STAMPER,
    'CAS on a missing skill',
    'if (expected !== 0 && expected !== stored?.syncVersion)',
    'if (stored && expected !== 0 && expected !== stored.syncVersion)',
  ],
  [STAMPER, 'skill ids are unique', 'if (draft.id !== undefined && holderOfId && holderOfId.id !== stored?.id)', 'if (false)'],
  [STAMPER, 'update bumps version', 'version: stored.version + 1,', 'version: stored.version,'],
  [STAMPER, 'update keeps the name', 'name: draft.name ?? stored.name,', "name: draft.name ?? '',"],
  [STAMPER, 'update keeps uses', 'uses: draft.uses ?? stored.uses,', 'uses: draft.uses ?? 0,'],
  [STAMPER, 'update keeps tags', 'tags: [...(draft.tags ?? stored.tags)],', 'tags: [...(draft.tags ?? [])],'],
  [STAMPER, 'update keeps check', 'check: draft.check ?? stored.check,', "check: draft.check ?? '',"],
  [STAMPER, 'outcome counts a win', 'wins: skill.wins + (success ? 1 : 0),', 'wins: skill.wins,'],
  [STAMPER, 'outcome counts a use', 'uses: skill.uses + 1,', 'uses: skill.uses,'],
  [STAMPER, 'skill delete bumps version', 'version: skill.version + 1,', 'version: skill.version,'],
  [
    STAMPER,
    'memory ids are unique',
    'if (existing) throw new ConflictError(`memory id already taken',
    'if (false) throw new ConflictError(`memory id already taken',
  ],
  [
    STAMPER,
    'memory delete needs a live item',
    "if (!item || item.deleted) throw new NotFoundError('memory', id);",
    "if (!item) throw new NotFoundError('memory', id);",
  ],
  [STAMPER, 'a replacement observes the replaced HLC', 'this.ctx.hlc.observe(previous.updatedHlc);', ''],
  [STAMPER, 'syncVersion + 1 on replace', 'syncVersion: previous.syncVersion + 1,', 'syncVersion: previous.syncVersion,'],
  [STAMPER, 'origin never changes', 'originInstanceId: previous.originInstanceId,', 'originInstanceId: this.ctx.instanceId,'],
  [STAMPER, 'tombstones are flagged', '      deleted,\n    };\n  }\n}', '      deleted: false,\n    };\n  }\n}'],
  [STATE, 'deleted sessions leave the list', 'if (session.deleted) this.liveSessions.remove(session);', 'if (false) this.liveSessions.remove(session);'],
  [STATE, 'replaced skills are unindexed', 'if (previous) this.#unindexSkill(previous);', ''],
  [STATE, 'deleted skills are not indexed', '    if (skill.deleted) return;\n', ''],
  [STATE, 'replaced memory leaves the live list', 'if (previous && !previous.deleted) this.liveMemory.remove(previous);', ''],
  [STATE, 'restore loads turns', 'for (const t of snapshot.turns) this.#putTurn(t);', ''],
  [STATE, 'restore keeps the seq', 'this.seq = snapshot.seq;', ''],
  [STATE, 'the largest HLC is tracked', 'this.maxHlc = maxHlc(this.maxHlc, hlc);', ''],
  [STATE, 'turns are indexed by id', 'this.turnIds.add(turn.id);', ''],
];

const run = (cmd) => {
  try {
    execSync(cmd, { stdio: 'pipe', env: { ...process.env, NO_COLOR: '1' } });
    return true;
  } catch {
    return false;
  }
};

let survived = 0;
for (const [file, rule, find, replace] of MUTATIONS) {
  const original = readFileSync(file, 'utf8');
  if (!original.includes(find)) {
    console.log(`?  ${rule}: pattern not found in ${file}`);
    survived += 1;
    continue;
  }
  writeFileSync(file, original.replace(find, replace));
  try {
    const built = run('npx tsc -b packages/core/tsconfig.json');
    const passed = built && run('npx vitest run packages/core packages/testing');
    console.log(`${passed ? 'SURVIVED' : 'killed  '} ${rule}`);
    if (passed) survived += 1;
  } finally {
    writeFileSync(file, original);
  }
}
run('npx tsc -b packages/core/tsconfig.json');
console.log(`\n${MUTATIONS.length - survived} of ${MUTATIONS.length} mutations killed`);
process.exitCode = survived === 0 ? 0 : 1;
