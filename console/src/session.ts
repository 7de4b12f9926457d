import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ConsoleSession } from './api.js';

type SessionState = {
  session: ConsoleSession;
  /** After sign-in or a change of role: the session as the API now sees it. */
  setSession: (s: ConsoleSession | null) => void;
};

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in page');
  return s;
}

/** What the member's access lets the console show (the API refuses the rest anyway). */
export const can = {
  admin: (s: ConsoleSession) => s.access === 'admin',
  write: (s: ConsoleSession) => s.access !== 'tasks',
  tasksOnly: (s: ConsoleSession) => s.access === 'tasks',
};
