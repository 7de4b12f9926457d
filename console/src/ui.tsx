import type { ComponentChildren, TargetedEvent } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './api.js';
import type { Loaded } from './hooks.js';
import { Link } from './router.js';

/** A page's title, and the heading focus moves to when the page opens (screen readers announce it). */
export function PageHeader(props: { title: string; children?: ComponentChildren; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Shelf console`;
    heading.current?.focus();
  }, [props.title]);
  return (
    <header class="page-header">
      <div>
        <h1 tabIndex={-1} ref={heading}>
          {props.title}
        </h1>
        {props.children}
      </div>
      {props.actions && <div class="page-actions">{props.actions}</div>}
    </header>
  );
}

/** A failed request, said so a person knows what happened and what to do next. */
export function ErrorNotice(props: { error: unknown; onRetry?: () => void }) {
  if (!props.error) return null;
  const { title, detail, retry } = describeError(props.error);
  return (
    <div class="notice notice-error" role="alert">
      <p>
        <strong>{title}.</strong> {detail}
      </p>
      {retry && props.onRetry && (
        <button type="button" class="button-secondary" onClick={props.onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Something done: announced politely. */
export function Notice(props: { children: ComponentChildren; kind?: 'success' | 'info' }) {
  return (
    <div class={`notice notice-${props.kind ?? 'success'}`} role="status">
      {props.children}
    </div>
  );
}

/** Nothing to show yet, and what to do about it. */
export function EmptyState(props: { title: string; children: ComponentChildren }) {
  return (
    <div class="empty">
      <h2>{props.title}</h2>
      {props.children}
    </div>
  );
}

/**
 * A detail page whose record is not there: loading it, or why it could not be loaded (with a retry
 * where one may help) and the way back to its list.
 */
export function NotLoaded(props: { loaded: Loaded<unknown>; title: string; what: string; back: [string, string] }) {
  if (props.loaded.loading) return <Loading what={props.what} />;
  const [href, label] = props.back;
  return (
    <section>
      <PageHeader title={props.title} />
      <ErrorNotice error={props.loaded.error} onRetry={props.loaded.reload} />
      <p>
        <Link href={href}>{label}</Link>
      </p>
    </section>
  );
}

export function Loading(props: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {props.what}…
    </p>
  );
}

const STATUS_CLASS: Record<string, string> = {
  completed: 'good',
  succeeded: 'good',
  active: 'good',
  matched: 'good',
  processing: 'wait',
  pending: 'wait',
  in_progress: 'wait',
  expiring: 'wait',
  probable: 'wait',
  snoozed: 'wait',
  unread: 'wait',
  failed: 'bad',
  disabled: 'bad',
  revoked: 'bad',
  cancelled: 'muted',
  unmatched: 'muted',
  read: 'muted',
  acknowledged: 'muted',
  dismissed: 'muted',
  critical: 'bad',
  warning: 'wait',
  info: 'muted',
};

/** A status as a word on a coloured ground (the word carries it; the colour only helps). */
export function Badge(props: { value: string }) {
  return <span class={`badge badge-${STATUS_CLASS[props.value] ?? 'muted'}`}>{props.value.replace(/_/g, ' ')}</span>;
}

/** A time, readable, with the exact instant on hover and for assistive technology. */
export function Time(props: { value: string | null | undefined; empty?: string }) {
  if (!props.value) return <span class="muted">{props.empty ?? '—'}</span>;
  const d = new Date(props.value);
  return (
    <time dateTime={props.value} title={d.toISOString()}>
      {d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}

/** A labelled form control: the label is the control's name for screen readers. */
export function Field(props: { label: string; hint?: string; children: ComponentChildren; id: string }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
    </div>
  );
}

/**
 * A secret shown once (a new API key, a webhook signing secret, a link): selectable, copyable, and
 * said plainly that it will not be shown again.
 */
export function SecretOnce(props: { label: string; value: string; children?: ComponentChildren }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="region" aria-label={props.label}>
      <p>
        <strong>{props.label}</strong>: shown only now. Store it before you leave this page.
      </p>
      <div class="secret-row">
        <code class="secret-value" data-testid="secret-value">
          {props.value}
        </code>
        <button
          type="button"
          class="button-secondary"
          onClick={() =>
            void navigator.clipboard?.writeText(props.value).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      {props.children}
    </div>
  );
}

/**
 * A confirmation in a modal dialog (the browser's own: focus stays inside it, Escape closes it,
 * focus returns to the button that opened it).
 */
export function ConfirmButton(props: {
  label: string;
  title: string;
  children: ComponentChildren;
  confirm: string;
  danger?: boolean;
  disabled?: boolean;
  onConfirm: () => void | Promise<unknown>;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useRef(`dlg-${Math.random().toString(36).slice(2)}`).current;
  return (
    <>
      <button
        type="button"
        class={props.danger ? 'button-danger' : 'button-secondary'}
        disabled={props.disabled}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-title`}>
        <form
          method="dialog"
          onSubmit={(e) => {
            const submitter = (e as SubmitEvent).submitter as HTMLButtonElement | null;
            if (submitter?.value === 'confirm') void props.onConfirm();
          }}
        >
          <h2 id={`${id}-title`}>{props.title}</h2>
          <div>{props.children}</div>
          <div class="dialog-actions">
            <button type="submit" value="cancel" class="button-secondary">
              Cancel
            </button>
            <button type="submit" value="confirm" class={props.danger ? 'button-danger' : 'button-primary'}>
              {props.confirm}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}

/**
 * Cursor paging, as the API pages: forward with its cursor, back through the cursors seen. The page's
 * cursor lives in the URL so a page can be reloaded or shared.
 */
export function Pager(props: {
  hasMore: boolean;
  next: string | null;
  history: string[];
  onPage: (cursor: string | undefined, history: string[]) => void;
}) {
  const back = props.history.length > 0;
  if (!back && !props.hasMore) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button
        type="button"
        class="button-secondary"
        disabled={!back}
        onClick={() => {
          const history = props.history.slice(0, -1);
          props.onPage(history.at(-1) || undefined, history);
        }}
      >
        ← Newer
      </button>
      <span class="muted">Page {props.history.length + 1}</span>
      <button
        type="button"
        class="button-secondary"
        disabled={!props.hasMore || !props.next}
        onClick={() => props.onPage(props.next!, [...props.history, props.next!])}
      >
        Older →
      </button>
    </nav>
  );
}

/** A short id for tables, the whole one for assistive technology and copying. */
export function ShortId(props: { id: string }) {
  return (
    <code class="id" title={props.id}>
      {props.id.length > 16 ? `${props.id.slice(0, 6)}…${props.id.slice(-6)}` : props.id}
    </code>
  );
}

/** A definition list of label and value pairs. */
export function Facts(props: { items: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {props.items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v ?? <span class="muted">—</span>}</dd>
        </div>
      ))}
    </dl>
  );
}

export type InputEvent = TargetedEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, Event>;
export const valueOf = (e: InputEvent) => e.currentTarget.value;
