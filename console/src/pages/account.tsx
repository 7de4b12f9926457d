import { api } from '../api.js';
import { useSession } from '../session.js';
import { useAction, useLoad } from '../hooks.js';
import { navigate } from '../router.js';
import { ConfirmButton, ErrorNotice, Facts, Loading, PageHeader, Time } from '../ui.js';

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
      <h2>Signed in</h2>
      <ErrorNotice error={sessions.error ?? everywhere.error} onRetry={sessions.reload} />
      {!sessions.data ? (
        <Loading what="your sessions" />
      ) : (
        <table class="list">
          <caption class="visually-hidden">Your sessions</caption>
          <thead>
            <tr>
              <th scope="col">Browser</th>
              <th scope="col">Address</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last active</th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.map((s) => (
              <tr key={s.id}>
                <td data-label="Browser">
                  {s.userAgent ?? 'unknown'}
                  {s.current && <strong> (this one)</strong>}
                </td>
                <td data-label="Address">{s.address ?? '—'}</td>
                <td data-label="Signed in">
                  <Time value={s.createdAt} />
                </td>
                <td data-label="Last active">
                  <Time value={s.lastSeenAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
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
