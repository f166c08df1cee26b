/** Skills: the live skills, and for one its versions, its outcome evidence over time, its history and its body rendered as Markdown. */
import type { Skill } from '@agentstate/core';
import { useState } from 'react';
import { del, get, type SkillDetail, type SkillVersion } from '../api';
import { useChanges } from '../live';
import { purgeConfirmed } from '../purge';
import { History } from '../parts/History';
import { Markdown } from '../parts/Markdown';
import { OutcomeChart } from '../parts/OutcomeChart';
import { scopeText, useLoad, when } from '../util';

function Detail({ id, allowWrites, onDeleted }: { id: string; allowWrites: boolean; onDeleted: () => void }) {
  const changes = useChanges();
  const detail = useLoad(() => get<SkillDetail>(`/skills/${encodeURIComponent(id)}`), [id, changes]);
  const [versionSeq, setVersionSeq] = useState<number | undefined>();
  const version = useLoad(
    () => (versionSeq === undefined ? Promise.resolve(undefined) : get<SkillVersion>(`/skills/${encodeURIComponent(id)}/version`, { seq: versionSeq })),
    [id, versionSeq],
  );
  if (detail.error) return <p className="error">{detail.error}</p>;
  if (!detail.value) return <p className="muted">loading…</p>;
  const { skill, history } = detail.value;
  const versions = history.filter((p) => p.type === 'skill.upserted');
  const remove = async () => {
    if (!window.confirm(`Delete the skill ${skill.slug}?`)) return;
    await del(`/skills/${encodeURIComponent(skill.id)}`);
    onDeleted();
  };
  const purge = async () => {
    if (await purgeConfirmed(skill.id, `the skill ${skill.slug}`)) onDeleted();
  };
  const shown = version.value;
  return (
    <section className="detail" data-testid="skill-detail">
      <h2>
        {skill.name || skill.slug} <span className="muted">v{skill.version}</span>
      </h2>
      <p className="muted">
        {skill.slug} · {scopeText(skill.scope)} · {skill.wins}/{skill.uses} wins
        {skill.tags.length > 0 ? ` · ${skill.tags.join(', ')}` : ''}
      </p>
      {allowWrites && (
        <button type="button" className="danger" onClick={() => void remove()}>
          delete skill
        </button>
      )}{' '}
      {allowWrites && (
        <button type="button" className="danger" onClick={() => void purge()}>
          purge skill
        </button>
      )}
      <OutcomeChart points={history} />
      <h3>versions</h3>
      <ul className="versions">
        {versions.map((p) => (
          <li key={p.seq}>
            <button
              type="button"
              className={(versionSeq ?? versions[versions.length - 1]?.seq) === p.seq ? 'chip selected' : 'chip'}
              onClick={() => setVersionSeq(p.seq)}
            >
              v{p.version} · {when(p.time)}
            </button>
          </li>
        ))}
      </ul>
      <Markdown text={shown ? shown.body : skill.body} />
      <h3>history</h3>
      <History id={skill.id} version={skill.syncVersion} />
    </section>
  );
}

export function SkillsView({ allowWrites }: { allowWrites: boolean }) {
  const changes = useChanges();
  const skills = useLoad(() => get<Skill[]>('/skills'), [changes]);
  const [selected, setSelected] = useState<string | undefined>();
  return (
    <div className="split" data-testid="view-skills">
      <aside>
        <ul className="list">
          {(skills.value ?? []).map((s) => (
            <li key={s.id}>
              <button type="button" className={s.id === selected ? 'row selected' : 'row'} onClick={() => setSelected(s.id)}>
                <span className="title">{s.slug}</span>
                <span className="muted">
                  v{s.version} · {s.wins}/{s.uses} wins · {scopeText(s.scope)}
                </span>
              </button>
            </li>
          ))}
        </ul>
        {skills.value?.length === 0 && <p className="muted">no skills</p>}
        {skills.error && <p className="error">{skills.error}</p>}
      </aside>
      {selected ? (
        <Detail key={selected} id={selected} allowWrites={allowWrites} onDeleted={() => setSelected(undefined)} />
      ) : (
        <p className="muted detail">choose a skill</p>
      )}
    </div>
  );
}
