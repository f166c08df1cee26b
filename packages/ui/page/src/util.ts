/** Small helpers for loading data and showing numbers. */
import { useEffect, useState } from 'react';

/** The state of a load: its value, or its error, or neither while it runs. */
export interface Loaded<T> {
  value?: T;
  error?: string;
  loading: boolean;
}

/**
 * Runs `load` whenever `deps` change and keeps the last value while the
 * next load runs (so a live reload does not flash the view empty); a result
 * that arrives after a newer load started is dropped.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ loading: true });
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (value) => current && setState({ value, loading: false }),
      (error: unknown) => current && setState({ error: error instanceof Error ? error.message : String(error), loading: false }),
    );
    return () => {
      current = false;
    };
    // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what the load depends on
  }, deps);
  return state;
}

const numberFormat = new Intl.NumberFormat('en');

/** 12,345 */
export const count = (n: number): string => numberFormat.format(n);

/** 1.2 MB */
export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** An instant as people read it, to the second. */
export const when = (instant: string): string => instant.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');

/** A scope as people read it. */
export const scopeText = (scope: readonly string[]): string => (scope.length === 0 ? 'global' : scope.join('/'));
