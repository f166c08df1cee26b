/** The head of the log, kept current by the server's live feed, for views that follow new events. */
import { createContext, useContext, useEffect, useState } from 'react';
import { liveAddress } from './api';

/** The seq of the newest event the page knows of (0 until the feed answers). */
export const HeadContext = createContext(0);

/** The current head; a view that depends on it reloads when it moves. */
export const useHead = (): number => useContext(HeadContext);

/** Follows the live feed; EventSource reconnects by itself after a dropped connection. */
export function useLiveHead(): number {
  const [head, setHead] = useState(0);
  useEffect(() => {
    const source = new EventSource(liveAddress());
    source.onmessage = (message: MessageEvent<string>) => setHead((JSON.parse(message.data) as { head: number }).head);
    return () => source.close();
  }, []);
  return head;
}
