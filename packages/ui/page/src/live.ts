/**
 * The head of the log, kept current by the server's live feed, for views
 * that follow new events. A view reloads on {@link useChanges}, not on the
 * head itself: the feed's first message only says where the log stood when
 * the page opened, which the view's first load already read, so reloading
 * then would throw away the first answer and make the first paint wait for
 * a second one.
 */
import { createContext, useContext, useEffect, useState } from 'react';
import { liveAddress } from './api';

/** The seq of the newest event the page knows of (0 until the feed answers). */
export const HeadContext = createContext(0);

/** The head once the log moved after the page opened; 0 until then. */
export const ChangesContext = createContext(0);

/** The current head, for showing it. */
export const useHead = (): number => useContext(HeadContext);

/** A value that changes whenever an event is written after the page opened: a view that depends on it reloads then. */
export const useChanges = (): number => useContext(ChangesContext);

/** Follows the live feed; EventSource reconnects by itself after a dropped connection. */
export function useLiveHead(): { head: number; changes: number } {
  const [state, setState] = useState({ first: -1, head: 0 });
  useEffect(() => {
    const source = new EventSource(liveAddress());
    source.onmessage = (message: MessageEvent<string>) => {
      const { head } = JSON.parse(message.data) as { head: number };
      setState((s) => ({ first: s.first === -1 ? head : s.first, head }));
    };
    return () => source.close();
  }, []);
  return { head: state.head, changes: state.head > state.first && state.first !== -1 ? state.head : 0 };
}
