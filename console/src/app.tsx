import { useEffect, useState } from 'preact/hooks';
import { api, onSessionEnded, setCsrfToken, ShelfApiError, type ConsoleSession } from './api.js';
import { Link, match, navigate, useLocation } from './router.js';
import { can, SessionContext } from './session.js';
import { ErrorNotice, Loading } from './ui.js';
import { AccountPage, PasswordPage } from './pages/account.js';
import { AlertPage, AlertsPage } from './pages/alerts.js';
import { AnalysesPage } from './pages/analyses.js';
import { AnalysisPage } from './pages/analysis.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { MembersPage } from './pages/members.js';
import { SetPasswordPage } from './pages/set-password.js';
import { SignInPage } from './pages/sign-in.js';
import { TaskPage, TasksPage } from './pages/tasks.js';
import { UsagePage } from './pages/usage.js';
import { WebhookPage } from './pages/webhook.js';
import { WebhooksPage } from './pages/webhooks.js';

type Page = { path: string; label: string; show: (s: ConsoleSession) => boolean };
const NAV: Page[] = [
  { path: '/analyses', label: 'Analyses', show: can.write },
  { path: '/tasks', label: 'Tasks', show: () => true },
  { path: '/alerts', label: 'Alerts', show: can.write },
  { path: '/webhooks', label: 'Webhooks', show: can.admin },
  { path: '/api-keys', label: 'API keys', show: can.admin },
  { path: '/usage', label: 'Usage', show: can.write },
  { path: '/members', label: 'Members', show: can.admin },
];

/** The member's first page: analyses, or tasks for a tasker. */
const home = (s: ConsoleSession) => (can.tasksOnly(s) ? '/tasks' : '/analyses');

function Routes(props: { session: ConsoleSession }) {
  const { path } = useLocation();
  const s = props.session;
  const entry = path === '/' || path === '/sign-in';
  useEffect(() => {
    if (entry) navigate(home(s), { replace: true });
  }, [entry, s]);
  let m: Record<string, string> | null;
  if (entry) return null;
  if (path === '/analyses' && can.write(s)) return <AnalysesPage />;
  if ((m = match('/analyses/:id', path)) && can.write(s)) return <AnalysisPage id={m.id!} />;
  if (path === '/tasks') return <TasksPage />;
  if ((m = match('/tasks/:id', path))) return <TaskPage id={m.id!} />;
  if (path === '/alerts' && can.write(s)) return <AlertsPage />;
  if ((m = match('/alerts/:id', path)) && can.write(s)) return <AlertPage id={m.id!} />;
  if (path === '/webhooks' && can.admin(s)) return <WebhooksPage />;
  if ((m = match('/webhooks/:id', path)) && can.admin(s)) return <WebhookPage id={m.id!} />;
  if (path === '/api-keys' && can.admin(s)) return <ApiKeysPage />;
  if (path === '/usage' && can.write(s)) return <UsagePage />;
  if (path === '/members' && can.admin(s)) return <MembersPage />;
  if (path === '/account') return <AccountPage />;
  if (path === '/account/password') return <PasswordPage />;
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no such page, or your role ({s.member.role}) does not open it.{' '}
        <Link href={home(s)}>Go to your first page</Link>.
      </p>
    </section>
  );
}

function Shell(props: { session: ConsoleSession; setSession: (s: ConsoleSession | null) => void }) {
  const { path } = useLocation();
  const s = props.session;
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);
  // Ends the session on the server (its cookie too), then back to the sign-in page.
  const signOut = () =>
    void api
      .post('/api/v1/auth/sign-out')
      .catch(() => undefined)
      .then(() => {
        props.setSession(null);
        navigate('/sign-in', { replace: true });
      });
  return (
    <SessionContext.Provider value={{ session: s, setSession: props.setSession }}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href={home(s)} class="brand">
          Shelf console
        </Link>
        <span class="org" title={s.organisation.id}>
          {s.organisation.name}
        </span>
        <button
          type="button"
          class="menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <nav id="main-nav" class={menuOpen ? 'open' : ''} aria-label="Console">
          <ul>
            {NAV.filter((p) => p.show(s)).map((p) => (
              <li key={p.path}>
                <Link href={p.path} aria-current={path.startsWith(p.path) ? 'page' : undefined}>
                  {p.label}
                </Link>
              </li>
            ))}
            <li>
              <Link href="/account" aria-current={path.startsWith('/account') ? 'page' : undefined}>
                {s.member.name} ({s.member.role})
              </Link>
            </li>
            <li>
              <button type="button" class="button-secondary nav-sign-out" onClick={signOut}>
                Sign out
              </button>
            </li>
          </ul>
        </nav>
        <button type="button" class="button-secondary sign-out" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Routes session={s} />
      </main>
    </SessionContext.Provider>
  );
}

/**
 * The console: who is signed in (GET /auth/session), then the pages their access opens. The public
 * pages (sign-in, set-password) need no session. A 401 from any request means the session ended: the
 * console returns to sign-in, saying so.
 */
export function App() {
  const { path } = useLocation();
  const [session, setSessionState] = useState<ConsoleSession | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [ended, setEnded] = useState(false);
  const setSession = (s: ConsoleSession | null) => {
    setCsrfToken(s?.csrfToken);
    setSessionState(s);
  };
  const load = () => {
    setError(undefined);
    api.get('/api/v1/auth/session').then(
      ({ data }) => setSession(data),
      (err: unknown) => {
        if (err instanceof ShelfApiError && err.status === 401) setSessionState(null);
        else setError(err);
      },
    );
  };
  useEffect(load, []);
  useEffect(
    () =>
      onSessionEnded(() => {
        setEnded(true);
        setSession(null);
      }),
    [],
  );

  if (path === '/set-password')
    return (
      <SetPasswordPage
        onSignedIn={(s) => {
          setSession(s);
          navigate(home(s), { replace: true });
        }}
      />
    );
  if (error)
    return (
      <main id="main" class="centered">
        <ErrorNotice error={error} onRetry={load} />
      </main>
    );
  if (session === undefined) return <Loading what="the console" />;
  if (session === null)
    return (
      <SignInPage
        ended={ended}
        onSignedIn={(s) => {
          // Back to the page that asked for the sign-in (Routes sends / and /sign-in to the first page).
          setEnded(false);
          setSession(s);
        }}
      />
    );
  return <Shell session={session} setSession={setSession} />;
}
