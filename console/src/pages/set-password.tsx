import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type ConsoleSession } from '../api.js';
import { useAction, useLoad } from '../hooks.js';
import { Link } from '../router.js';
import { useNewPassword } from '../passwords.js';
import { ErrorNotice, Field, Loading, valueOf } from '../ui.js';

/** The link's token, from the fragment (never sent to the server, nor in a Referer). */
function tokenFromHash(): string {
  return new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
}

/**
 * Where a sign-in or invitation link lands: whose link it is, then a password (and, for an
 * invitation, a name), then signed in. The token leaves the address bar at once.
 */
export function SetPasswordPage(props: { onSignedIn: (s: ConsoleSession) => void }) {
  const [token] = useState(tokenFromHash);
  const [name, setName] = useState('');
  const fresh = useNewPassword();
  const { password, mismatch } = fresh;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = 'Set your password · Shelf console';
    // Out of the address bar and the history: the token is a password until it is used.
    history.replaceState(null, '', location.pathname);
  }, []);
  const link = useLoad(
    (signal) =>
      token
        ? api.post('/api/v1/auth/links/inspect', { body: { token }, signal }).then((r) => r.data)
        : Promise.resolve(null),
    [token],
  );
  useEffect(() => heading.current?.focus(), [link.data]);
  const redeem = useAction(async () => {
    const { data } = await api.post('/api/v1/auth/links/redeem', {
      body: { token, password, ...(link.data?.kind === 'invitation' ? { name } : {}) },
    });
    props.onSignedIn(data);
  });
  if (link.loading) return <Loading what="your link" />;
  if (!token || link.error || !link.data)
    return (
      <main id="main" class="centered">
        <div class="card auth">
          <h1 tabIndex={-1} ref={heading}>
            This link does not work
          </h1>
          {link.error ? <ErrorNotice error={link.error} /> : <p>The link has no token in it.</p>}
          <p>
            Links work once and for a limited time. Ask an owner of your organisation for a new one, or{' '}
            <Link href="/sign-in">sign in</Link> if you already have a password.
          </p>
        </div>
      </main>
    );
  const invitation = link.data.kind === 'invitation';
  return (
    <main id="main" class="centered">
      <form
        class="card auth"
        onSubmit={(e) => {
          e.preventDefault();
          if (!mismatch) void redeem.run();
        }}
      >
        <h1 tabIndex={-1} ref={heading}>
          {invitation ? `Join ${link.data.organisation.name}` : 'Choose your password'}
        </h1>
        <p>
          For <strong>{link.data.email}</strong> at <strong>{link.data.organisation.name}</strong>. The link works once,
          until {new Date(link.data.expiresAt).toLocaleString()}.
        </p>
        <input type="email" autoComplete="username" value={link.data.email} hidden readOnly />
        {invitation && (
          <Field id="name" label="Your name">
            <input id="name" required autoComplete="name" value={name} onInput={(e) => setName(valueOf(e))} />
          </Field>
        )}
        {fresh.fields}
        <ErrorNotice error={redeem.error} />
        <button type="submit" class="button-primary" disabled={redeem.busy || mismatch}>
          {redeem.busy ? 'Saving…' : invitation ? 'Join and sign in' : 'Save and sign in'}
        </button>
      </form>
    </main>
  );
}
