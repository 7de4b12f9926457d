import { useState } from 'preact/hooks';
import { api, type ApiKey } from '../api.js';
import { useAction, useLoad } from '../hooks.js';
import { PagedList, useLocalPaging } from '../lists.js';
import {
  Badge,
  ConfirmButton,
  EmptyState,
  ErrorNotice,
  Field,
  Notice,
  PageHeader,
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
  const keyPages = useLocalPaging();
  const keys = useLoad(
    (signal) =>
      api.get('/api/v1/api-keys', {
        params: { query: { limit: 50, ...(keyPages.cursor ? { cursor: keyPages.cursor } : {}) } },
        signal,
      }),
    [keyPages.cursor],
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
      <ErrorNotice error={revoke.error} />
      <PagedList
        page={keys}
        what="API keys"
        paging={keyPages.paging}
        table={{
          caption: 'API keys',
          rowProps: (k) => ({ 'data-key': k.id }),
          columns: [
            {
              label: 'Name',
              cell: (k) => (
                <>
                  {k.name ?? <span class="muted">unnamed</span>}
                  <div class="muted">
                    <code>{k.prefix}…</code>
                  </div>
                </>
              ),
            },
            { label: 'Role', cell: (k) => k.role },
            {
              label: 'Status',
              cell: (k) => (
                <>
                  <Badge value={k.status} />
                  {k.status === 'expiring' && (
                    <div class="muted">
                      until <Time value={k.expiresAt} />
                    </div>
                  )}
                </>
              ),
            },
            { label: 'Last used', cell: (k) => <Time value={k.lastUsedAt} empty="never" /> },
            { label: 'Created', cell: (k) => <Time value={k.createdAt} /> },
            {
              label: 'Actions',
              hideLabel: true,
              class: 'row-actions',
              cell: (k) =>
                k.status !== 'revoked' && (
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
                ),
            },
          ],
        }}
        empty={
          <EmptyState title="No API keys yet">
            <p>
              Create one below, then send it as <code>Authorization: Bearer …</code>.
            </p>
          </EmptyState>
        }
      />
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
