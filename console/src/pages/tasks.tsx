import { useEffect, useState } from 'preact/hooks';
import { api, type TaskRow } from '../api.js';
import { can, useSession } from '../session.js';
import { useAction, useLoad, useRecord } from '../hooks.js';
import { PagedList, SelectFilter, useListQuery, type Column } from '../lists.js';
import { Link } from '../router.js';
import { Badge, EmptyState, ErrorNotice, Facts, Field, Notice, NotLoaded, PageHeader, Time, valueOf } from '../ui.js';

const STATUSES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
type Status = (typeof STATUSES)[number];
/** The moves a task allows (decisions.md): pending → in progress, completed or cancelled; in progress → completed or cancelled. */
const NEXT: Record<Status, Status[]> = {
  pending: ['in_progress', 'completed', 'cancelled'],
  in_progress: ['completed', 'cancelled'],
  completed: [],
  cancelled: [],
};
const VERB: Record<Status, string> = {
  pending: 'Reopen',
  in_progress: 'Start',
  completed: 'Complete',
  cancelled: 'Cancel task',
};

/** The list's columns. */
const COLUMNS: Column<TaskRow>[] = [
  { label: 'Task', cell: (t) => <Link href={`/tasks/${t.id}`}>{t.title}</Link> },
  { label: 'Status', cell: (t) => <Badge value={t.status} /> },
  { label: 'Place', cell: (t) => t.placeName ?? <span class="muted">—</span> },
  { label: 'Due', cell: (t) => t.dueDate ?? <span class="muted">—</span> },
  {
    label: 'Compliance',
    cell: (t) => (t.complianceScore == null ? <span class="muted">—</span> : `${t.complianceScore}%`),
  },
];

/** Tasks, "assigned to me" first for a tasker (field staff), every task for the office. */
export function TasksPage() {
  const { session } = useSession();
  const list = useListQuery('/tasks');
  const mine = list.get('mine') || (can.tasksOnly(session) ? '1' : '');
  const status = list.get('status');
  const { cursor } = list;
  const page = useLoad(
    (signal) =>
      api.get('/api/v1/tasks', {
        params: {
          query: {
            ...(status ? { status: status as Status } : {}),
            ...(mine === '1' ? { assignedTo: session.member.userId } : {}),
            ...(cursor ? { cursor } : {}),
            limit: 25,
          },
        },
        signal,
      }),
    [list.key],
  );
  const go = (f: { mine: string; status: string }, c?: string, pages: string[] = []) =>
    list.go({ mine: f.mine || '0', status: f.status }, c, pages);
  return (
    <section>
      <PageHeader title="Tasks">
        <p class="lead">Store visits and shelf checks; a task completes when its analysis does, or by hand.</p>
      </PageHeader>
      <form class="filters" aria-label="Filter tasks" onSubmit={(e) => e.preventDefault()}>
        <SelectFilter
          id="t-mine"
          label="Whose"
          value={mine === '1' ? '1' : '0'}
          values={['1', '0']}
          any={null}
          show={(v) => (v === '1' ? 'Assigned to me' : "Everyone's")}
          onChange={(v) => go({ mine: v, status })}
        />
        <SelectFilter
          id="t-status"
          label="Status"
          value={status}
          values={STATUSES}
          onChange={(v) => go({ mine, status: v })}
        />
      </form>
      <PagedList
        page={page}
        what="tasks"
        paging={list.paging({ mine: mine || '0', status })}
        empty={
          <EmptyState title={mine === '1' ? 'Nothing assigned to you' : 'No tasks'}>
            <p>
              {mine === '1'
                ? "When someone assigns you a task it appears here. Look at everyone's tasks to pick one up."
                : status
                  ? 'No task has this status.'
                  : 'Tasks are created through the API (POST /api/v1/tasks), by your systems or an office member.'}
            </p>
          </EmptyState>
        }
        table={{ caption: 'Tasks', columns: COLUMNS }}
      />
    </section>
  );
}

export function TaskPage(props: { id: string }) {
  const { session } = useSession();
  const task = useRecord(props.id, (id, signal) => api.get('/api/v1/tasks/{id}', { params: { path: { id } }, signal }));
  const [notes, setNotes] = useState('');
  const [done, setDone] = useState<string | null>(null);
  useEffect(() => setNotes(task.data?.notes ?? ''), [task.data?.notes]);
  const change = useAction(async (body: { status?: Status; notes?: string }) => {
    await api.patch('/api/v1/tasks/{id}', { params: { path: { id: props.id } }, body });
    setDone(body.status ? `Task ${body.status.replace('_', ' ')}.` : 'Notes saved.');
    task.reload();
  });
  const t = task.data;
  if (!t) return <NotLoaded loaded={task} title="Task" what="the task" back={['/tasks', 'Back to tasks']} />;
  const moves = NEXT[t.status].filter((s) => s !== 'cancelled' || !can.tasksOnly(session));
  return (
    <section>
      <PageHeader title={t.title}>
        <p class="lead">
          <Link href="/tasks">Tasks</Link> / <code>{t.id}</code> <Badge value={t.status} />
        </p>
      </PageHeader>
      {done && <Notice>{done}</Notice>}
      <ErrorNotice error={change.error} />
      <Facts
        items={[
          ['Place', t.placeName ?? t.placeId],
          ['Assigned to', t.assignedTo === session.member.userId ? 'you' : t.assignedTo],
          ['Due', t.dueDate],
          ['Description', t.description],
          [
            'Compliance',
            t.complianceScore == null ? null : `${t.complianceScore}% (grade ${t.complianceGrade ?? '—'})`,
          ],
          [
            'Analysis',
            t.generationId &&
              (can.write(session) ? (
                <Link href={`/analyses/${t.generationId}`}>{t.generationId}</Link>
              ) : (
                t.generationId
              )),
          ],
          ['Expected items', t.expectationIds.length ? t.expectationIds.length : null],
          ['Created', <Time value={t.createdAt} />],
          [
            'Completed',
            t.completedAt && (
              <>
                <Time value={t.completedAt} />
                {t.completedBy ? ` by ${t.completedBy === session.member.userId ? 'you' : t.completedBy}` : ''}
              </>
            ),
          ],
        ]}
      />
      {moves.length > 0 && (
        <div class="actions">
          {moves.map((s) => (
            <button
              key={s}
              type="button"
              class={s === 'completed' ? 'button-primary' : s === 'cancelled' ? 'button-danger' : 'button-secondary'}
              disabled={change.busy}
              onClick={() => void change.run({ status: s })}
            >
              {VERB[s]}
            </button>
          ))}
        </div>
      )}
      <form
        class="card"
        aria-labelledby="notes-title"
        onSubmit={(e) => {
          e.preventDefault();
          void change.run({ notes });
        }}
      >
        <h2 id="notes-title">Notes</h2>
        <Field id="task-notes" label="Notes for the office">
          <textarea id="task-notes" rows={4} maxLength={5000} value={notes} onInput={(e) => setNotes(valueOf(e))} />
        </Field>
        <button type="submit" class="button-secondary" disabled={change.busy}>
          Save notes
        </button>
      </form>
    </section>
  );
}
