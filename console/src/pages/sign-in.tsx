import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ShelfApiError, type ConsoleSession } from '../api.js';
import { useAction } from '../hooks.js';
import { PasswordField } from '../passwords.js';
import { ErrorNotice, Field, Notice, valueOf } from '../ui.js';

type Choice = { id: string; name: string };

/**
 * E-mail and password. A person who belongs to several organisations (one password each) is asked
 * which, once a password matched. The first owner has no password yet: their link comes from the CLI.
 */
export function SignInPage(props: { ended: boolean; onSignedIn: (s: ConsoleSession) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [choices, setChoices] = useState<Choice[] | null>(null);
  const [organisationId, setOrganisationId] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = 'Sign in · Shelf console';
    heading.current?.focus();
  }, []);
  const signIn = useAction(async () => {
    try {
      const { data } = await api.post('/api/v1/auth/sign-in', {
        body: { email, password, ...(organisationId ? { organisationId } : {}) },
      });
      props.onSignedIn(data);
    } catch (err) {
      const organisations = (err as ShelfApiError).details?.organisations as Choice[] | undefined;
      if (err instanceof ShelfApiError && err.status === 409 && organisations) {
        setChoices(organisations);
        setOrganisationId(organisations[0]?.id ?? '');
        return;
      }
      throw err;
    }
  });
  const wrong = signIn.error instanceof ShelfApiError && signIn.error.code === 'INVALID_CREDENTIALS';
  return (
    <main id="main" class="centered">
      <form
        class="card auth"
        onSubmit={(e) => {
          e.preventDefault();
          void signIn.run();
        }}
      >
        <h1 tabIndex={-1} ref={heading}>
          Sign in to the Shelf console
        </h1>
        {props.ended && (
          <Notice kind="info">Your session ended (signed out, or unused for too long). Sign in again.</Notice>
        )}
        <Field id="email" label="E-mail address">
          <input
            id="email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onInput={(e) => setEmail(valueOf(e))}
          />
        </Field>
        <PasswordField
          id="password"
          label="Password"
          autoComplete="current-password"
          value={password}
          onInput={setPassword}
        />
        {choices && (
          <Field id="organisation" label="Organisation" hint="This address belongs to several organisations.">
            <select id="organisation" value={organisationId} onChange={(e) => setOrganisationId(valueOf(e))}>
              {choices.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </Field>
        )}
        {wrong ? (
          <div class="notice notice-error" role="alert">
            <p>
              <strong>The e-mail address or the password is wrong.</strong> Forgot it? Ask an owner of your organisation
              for a new sign-in link.
            </p>
          </div>
        ) : (
          <ErrorNotice error={signIn.error} />
        )}
        <button type="submit" class="button-primary" disabled={signIn.busy}>
          {signIn.busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="hint">
          First time? The first owner gets a one-time link from the server:{' '}
          <code>npm run cli -- member:login-link --org &lt;org_id&gt;</code>. Everyone else gets theirs from an owner's
          invitation.
        </p>
      </form>
    </main>
  );
}
