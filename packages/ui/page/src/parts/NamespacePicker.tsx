/** A choice of namespace (a live scope of the store), or all of them. */
import { get, type Namespace } from '../api';
import { useLoad } from '../util';

export function NamespacePicker({ value, onChange }: { value: string; onChange: (scope: string) => void }) {
  const namespaces = useLoad(() => get<Namespace[]>('/namespaces'), []);
  return (
    <select aria-label="namespace" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
      <option value="">all namespaces</option>
      {(namespaces.value ?? []).map((n) => (
        <option key={n.label} value={JSON.stringify(n.scope)}>
          {n.label}
        </option>
      ))}
    </select>
  );
}
