import { useState } from 'preact/hooks';
import { api, type Member } from '../api.js';
import { useSession } from '../session.js';
import { useAction, useLoad } from '../hooks.js';
import { ListStates } from '../lists.js';
import { ConfirmButton, EmptyState, ErrorNotice, Field, Notice, PageHeader, SecretOnce, Time, valueOf } from '../ui.js';

const ROLES = ['owner', 'member', 'tasker'] as const;

/** What became of a link: mailed (SMTP_URL set on the server), or here to pass on. */
type HandedOver = { link: string | null; mailedTo: string | null; mailError: string | null };

function LinkHandedOver(props: HandedOver & { label: string }) {
  if (!props.link)
    return (
      <Notice>
        {props.label.replace(/ for .*/, '')} mailed to <strong>{props.mailedTo}</strong>. It works once; a new one
        replaces it.
      </Notice>
    );
  return (
    <SecretOnce label={props.label} value={props.link}>
      <p>{props.mailError ?? 'No e-mail is sent: pass the link on privately.'} It works once.</p>
    </SecretOnce>
  );
}

/**
 * The organisation's people: invite (the link is mailed, or handed back to pass on without SMTP_URL), a
 * new sign-in link for someone who lost their password, a role change, a removal.
 */
export function MembersPage() {
  const { session } = useSession();
  const members = useLoad(
    (signal) => api.get('/api/v1/members', { params: { query: { limit: 100 } }, signal }).then((r) => r.data),
    [],
  );
  const invitations = useLoad(
    (signal) =>
      api.get('/api/v1/members/invitations', { params: { query: { limit: 100 } }, signal }).then((r) => r.data),
    [],
  );
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'member' | 'tasker'>('member');
  const [link, setLink] = useState<(HandedOver & { label: string }) | null>(null);
  const invite = useAction(async () => {
    const { data } = await api.post('/api/v1/members/invite', { body: { email, role } });
    setLink({ label: `Invitation link for ${data.email}`, ...data });
    setEmail('');
    invitations.reload();
  });
  const relink = useAction(async (invitationId: string, to: string) => {
    const { data } = await api.post('/api/v1/members/invitations/{invitationId}/link', {
      params: { path: { invitationId } },
    });
    setLink({ label: `New invitation link for ${to}`, ...data });
  });
  const reset = useAction(async (m: Member) => {
    const { data } = await api.post('/api/v1/members/{userId}/sign-in-link', {
      params: { path: { userId: m.userId } },
    });
    setLink({ label: `Sign-in link for ${m.email}`, ...data });
  });
  const setMemberRole = useAction(async (m: Member, to: (typeof ROLES)[number]) => {
    await api.patch('/api/v1/members/{userId}', { params: { path: { userId: m.userId } }, body: { role: to } });
    members.reload();
  });
  const remove = useAction(async (m: Member) => {
    await api.delete('/api/v1/members/{userId}', { params: { path: { userId: m.userId } } });
    members.reload();
  });
  const error = [invite.error, relink.error, reset.error, setMemberRole.error, remove.error].find(Boolean);
  return (
    <section>
      <PageHeader title="Members">
        <p class="lead">Owners administer, members work with the data, taskers see and complete tasks.</p>
      </PageHeader>
      {link && <LinkHandedOver {...link} />}
      <ErrorNotice error={error} />
      <ListStates
        loaded={members}
        rows={members.data}
        what="members"
        empty={null}
        table={{
          caption: 'Members',
          rowKey: (m) => m.userId,
          columns: [
            {
              label: 'Name',
              cell: (m) => (
                <>
                  {m.name}
                  {m.userId === session.member.userId && ' (you)'}
                  <div class="muted">{m.email}</div>
                </>
              ),
            },
            {
              label: 'Role',
              cell: (m) => (
                <>
                  <label class="visually-hidden" for={`role-${m.userId}`}>
                    Role of {m.name}
                  </label>
                  <select
                    id={`role-${m.userId}`}
                    value={m.role}
                    onChange={(e) => void setMemberRole.run(m, valueOf(e) as (typeof ROLES)[number])}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                </>
              ),
            },
            { label: 'Since', cell: (m) => <Time value={m.createdAt} /> },
            {
              label: 'Actions',
              hideLabel: true,
              class: 'row-actions',
              cell: (m) => (
                <>
                  <button type="button" class="button-secondary" onClick={() => void reset.run(m)}>
                    New sign-in link
                  </button>
                  {m.userId !== session.member.userId && (
                    <ConfirmButton
                      label="Remove"
                      title={`Remove ${m.name}?`}
                      confirm="Remove"
                      danger
                      onConfirm={() => remove.run(m)}
                    >
                      <p>They are signed out at once and can no longer sign in.</p>
                    </ConfirmButton>
                  )}
                </>
              ),
            },
          ],
        }}
      />
      <h2>Pending invitations</h2>
      {invitations.data?.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ul class="plain">
          {invitations.data?.map((i) => (
            <li key={i.invitationId}>
              {i.email} ({i.role}), invited <Time value={i.createdAt} />{' '}
              <button type="button" class="button-secondary" onClick={() => void relink.run(i.invitationId, i.email)}>
                New link
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        class="card"
        aria-labelledby="invite-title"
        onSubmit={(e) => {
          e.preventDefault();
          void invite.run();
        }}
      >
        <h2 id="invite-title">Invite someone</h2>
        <Field id="invite-email" label="E-mail address">
          <input id="invite-email" type="email" required value={email} onInput={(e) => setEmail(valueOf(e))} />
        </Field>
        <Field id="invite-role" label="Role">
          <select id="invite-role" value={role} onChange={(e) => setRole(valueOf(e) as 'member' | 'tasker')}>
            <option value="member">member</option>
            <option value="tasker">tasker</option>
          </select>
        </Field>
        <button type="submit" class="button-primary" disabled={invite.busy}>
          {invite.busy ? 'Inviting…' : 'Invite'}
        </button>
      </form>
      {members.data?.length === 0 && (
        <EmptyState title="No members">
          <p>Invite someone above.</p>
        </EmptyState>
      )}
    </section>
  );
}
