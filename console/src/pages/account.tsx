import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { useSession } from '../session.js';
import { useAction, useLoad } from '../hooks.js';
import { DataTable } from '../lists.js';
import { PasswordField, useNewPassword } from '../passwords.js';
import { Link, navigate } from '../router.js';
import { ConfirmButton, ErrorNotice, Facts, Loading, Notice, PageHeader, Time } from '../ui.js';

/** Who you are signed in as, where else you are signed in, and signing out everywhere. */
export function AccountPage() {
  const { session, setSession } = useSession();
  const sessions = useLoad((signal) => api.get('/api/v1/auth/sessions', { signal }).then((r) => r.data), []);
  const everywhere = useAction(async () => {
    await api.post('/api/v1/auth/sign-out-everywhere');
    setSession(null);
    navigate('/sign-in', { replace: true });
  });
  return (
    <section>
      <PageHeader title="Your account" />
      <Facts
        items={[
          ['Name', session.member.name],
          ['E-mail address', session.member.email],
          ['Role', `${session.member.role} (${session.access} access)`],
          ['Organisation', `${session.organisation.name} (${session.organisation.plan} plan)`],
          ['This session ends', <Time value={session.session.expiresAt} />],
          ['Idle timeout', `${Math.round(session.session.idleTimeoutSeconds / 60)} minutes`],
        ]}
      />
      <p>
        <Link href="/account/password">Change your password</Link>
      </p>
      <h2>Signed in</h2>
      <ErrorNotice error={sessions.error ?? everywhere.error} onRetry={sessions.reload} />
      {!sessions.data ? (
        <Loading what="your sessions" />
      ) : (
        <DataTable
          caption="Your sessions"
          rows={sessions.data}
          rowKey={(s) => s.id}
          columns={[
            {
              label: 'Browser',
              cell: (s) => (
                <>
                  {s.userAgent ?? 'unknown'}
                  {s.current && <strong> (this one)</strong>}
                </>
              ),
            },
            { label: 'Address', cell: (s) => s.address ?? '—' },
            { label: 'Signed in', cell: (s) => <Time value={s.createdAt} /> },
            { label: 'Last active', cell: (s) => <Time value={s.lastSeenAt} /> },
          ]}
        />
      )}
      <ConfirmButton
        label="Sign out everywhere"
        title="Sign out everywhere?"
        confirm="Sign out everywhere"
        danger
        onConfirm={() => everywhere.run()}
      >
        <p>Every session of yours ends at once, in every browser, this one included.</p>
      </ConfirmButton>
    </section>
  );
}

/**
 * A member changes their own password: the current one, then the new one twice. Their other sessions
 * end (the API says how many); this one goes on.
 */
export function PasswordPage() {
  const { session } = useSession();
  const [current, setCurrent] = useState('');
  const fresh = useNewPassword();
  const [done, setDone] = useState<string | null>(null);
  const change = useAction(async () => {
    const { data } = await api.post('/api/v1/auth/password', {
      body: { currentPassword: current, newPassword: fresh.password },
    });
    setCurrent('');
    fresh.reset();
    const n = data.otherSessionsEnded;
    setDone(
      `Password changed. ${n === 0 ? 'You were signed in nowhere else.' : `${n} other session${n === 1 ? '' : 's'} signed out.`}`,
    );
  });
  return (
    <section>
      <PageHeader title="Change your password">
        <p class="lead">
          <Link href="/account">Your account</Link> / password
        </p>
      </PageHeader>
      {done && <Notice>{done}</Notice>}
      <form
        class="card narrow"
        aria-label="Change your password"
        onSubmit={(e) => {
          e.preventDefault();
          if (!fresh.mismatch) void change.run();
        }}
      >
        <p>
          For <strong>{session.member.email}</strong>. Your other sessions end when it changes; this one goes on.
        </p>
        <input type="email" autoComplete="username" value={session.member.email} hidden readOnly />
        <PasswordField
          id="current-password"
          label="Current password"
          autoComplete="current-password"
          value={current}
          onInput={setCurrent}
        />
        {fresh.fields}
        <ErrorNotice error={change.error} />
        <button type="submit" class="button-primary" disabled={change.busy || fresh.mismatch}>
          {change.busy ? 'Saving…' : 'Change password'}
        </button>
      </form>
    </section>
  );
}
