import { useState } from 'preact/hooks';
import { api, type ApiKey } from '../api.js';
import { useAction, useLoad } from '../hooks.js';
import {
  Badge,
  ConfirmButton,
  EmptyState,
  ErrorNotice,
  Field,
  Loading,
  Notice,
  PageHeader,
  Pager,
  SecretOnce,
  Time,
  valueOf,
} from '../ui.js';

const ROLES = ['read', 'write', 'admin'] as const;
type Role = (typeof ROLES)[number];
const ROLE_HELP: Record<Role, string> = {
  read: 'GET only: dashboards, reports, polling.',
  write: 'Also submits analyses and creates or changes records.',
  admin: 'Everything: also webhooks, members and API keys.',
};

/** How long a rotated key keeps working, for the callers still using it. */
const GRACE = [
  { seconds: 0, label: 'Revoke it now' },
  { seconds: 3600, label: 'Keep it 1 hour' },
  { seconds: 86_400, label: 'Keep it 24 hours' },
  { seconds: 7 * 86_400, label: 'Keep it 7 days' },
];

function Rotate(props: { apiKey: ApiKey; onRotated: (secret: string, old: ApiKey) => void }) {
  const [grace, setGrace] = useState(86_400);
  const rotate = useAction(async () => {
    const { data } = await api.post('/api/v1/api-keys/{id}/rotate', {
      params: { path: { id: props.apiKey.id } },
      body: { gracePeriodSeconds: grace },
    });
    props.onRotated(data.key, props.apiKey);
  });
  const id = `grace-${props.apiKey.id}`;
  return (
    <>
      <ConfirmButton
        label="Rotate"
        title={`Rotate ${props.apiKey.name ?? props.apiKey.prefix}?`}
        confirm="Rotate"
        onConfirm={() => rotate.run()}
      >
        <p>A new key with the same role is shown once. The old one:</p>
        <Field id={id} label="The old key">
          <select id={id} value={grace} onChange={(e) => setGrace(Number(valueOf(e)))}>
            {GRACE.map((g) => (
              <option key={g.seconds} value={g.seconds}>
                {g.label}
              </option>
            ))}
          </select>
        </Field>
      </ConfirmButton>
      <ErrorNotice error={rotate.error} />
    </>
  );
}

export function ApiKeysPage() {
  const [cursor, setCursor] = useState<{ at?: string; history: string[] }>({ history: [] });
  const keys = useLoad(
    (signal) =>
      api.get('/api/v1/api-keys', {
        params: { query: { limit: 50, ...(cursor.at ? { cursor: cursor.at } : {}) } },
        signal,
      }),
    [cursor.at],
  );
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('write');
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const create = useAction(async () => {
    const { data } = await api.post('/api/v1/api-keys', { body: { role, ...(name ? { name } : {}) } });
    setSecret({ label: `New ${data.role} key${data.name ? ` "${data.name}"` : ''}`, value: data.key });
    setDone(null);
    setName('');
    keys.reload();
  });
  const revoke = useAction(async (k: ApiKey) => {
    await api.delete('/api/v1/api-keys/{id}', { params: { path: { id: k.id } } });
    setDone(`Revoked ${k.name ?? k.prefix}: refused from its very next request.`);
    setSecret(null);
    keys.reload();
  });
  return (
    <section>
      <PageHeader title="API keys">
        <p class="lead">Keys your systems call the API with. Each has one role; the full key is shown only once.</p>
      </PageHeader>
      {secret && (
        <SecretOnce label={secret.label} value={secret.value}>
          <p>Try it:</p>
          <pre>
            <code>{`curl ${location.origin}/api/v1/usage -H "Authorization: Bearer ${secret.value}"`}</code>
          </pre>
        </SecretOnce>
      )}
      {done && <Notice>{done}</Notice>}
      <ErrorNotice error={keys.error ?? revoke.error} onRetry={keys.reload} />
      {keys.loading && !keys.data ? (
        <Loading what="API keys" />
      ) : keys.data?.data.length === 0 ? (
        <EmptyState title="No API keys yet">
          <p>
            Create one below, then send it as <code>Authorization: Bearer …</code>.
          </p>
        </EmptyState>
      ) : (
        keys.data && (
          <>
            <table class="list">
              <caption class="visually-hidden">API keys</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.data.map((k) => (
                  <tr key={k.id} data-key={k.id}>
                    <td data-label="Name">
                      {k.name ?? <span class="muted">unnamed</span>}
                      <div class="muted">
                        <code>{k.prefix}…</code>
                      </div>
                    </td>
                    <td data-label="Role">{k.role}</td>
                    <td data-label="Status">
                      <Badge value={k.status} />
                      {k.status === 'expiring' && (
                        <div class="muted">
                          until <Time value={k.expiresAt} />
                        </div>
                      )}
                    </td>
                    <td data-label="Last used">
                      <Time value={k.lastUsedAt} empty="never" />
                    </td>
                    <td data-label="Created">
                      <Time value={k.createdAt} />
                    </td>
                    <td data-label="Actions" class="row-actions">
                      {k.status !== 'revoked' && (
                        <>
                          <Rotate
                            apiKey={k}
                            onRotated={(value, old) => {
                              setSecret({ label: `New key replacing ${old.name ?? old.prefix}`, value });
                              setDone(null);
                              keys.reload();
                            }}
                          />
                          <ConfirmButton
                            label="Revoke"
                            title={`Revoke ${k.name ?? k.prefix}?`}
                            confirm="Revoke"
                            danger
                            onConfirm={() => revoke.run(k)}
                          >
                            <p>Every request with it is refused from now on, on every server. This cannot be undone.</p>
                          </ConfirmButton>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager
              hasMore={keys.data.pagination.hasMore}
              next={keys.data.pagination.cursor}
              history={cursor.history}
              onPage={(at, history) => setCursor({ at, history })}
            />
          </>
        )
      )}
      <form
        class="card"
        aria-labelledby="new-key"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <h2 id="new-key">Create a key</h2>
        <Field id="key-name" label="Name" hint="What uses it, so you can tell keys apart later.">
          <input
            id="key-name"
            maxLength={100}
            placeholder="warehouse sync"
            aria-describedby="key-name-hint"
            value={name}
            onInput={(e) => setName(valueOf(e))}
          />
        </Field>
        <Field id="key-role" label="Role" hint={ROLE_HELP[role]}>
          <select
            id="key-role"
            value={role}
            onChange={(e) => setRole(valueOf(e) as Role)}
            aria-describedby="key-role-hint"
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <ErrorNotice error={create.error} />
        <button type="submit" class="button-primary" disabled={create.busy}>
          {create.busy ? 'Creating…' : 'Create key'}
        </button>
      </form>
    </section>
  );
}
