import type { ComponentChildren } from 'preact';
import type { Loaded } from './hooks.js';
import { navigate, queryString, useLocation } from './router.js';
import { ErrorNotice, Field, Loading, Pager, valueOf } from './ui.js';

/**
 * What every list page shares, so each says only what is its own (its filters, its columns, what to
 * do when it is empty): the page's place in the list from the URL, select filters, a table that folds
 * into cards at narrow widths, and the loading, error, empty and paging states around it.
 */

/** A page of any list the API pages. */
type ApiPage<T> = { data: T[]; pagination: { hasMore: boolean; cursor: string | null } };

/**
 * A list page's filters and place in the list, kept in the URL (reload, back and shared links keep
 * them): the cursor of the page shown and the cursors of the pages before it, for "← Newer".
 */
export function useListQuery(path: string) {
  const { query } = useLocation();
  const get = (name: string) => query.get(name) ?? '';
  return {
    get,
    cursor: query.get('cursor') ?? undefined,
    history: (query.get('pages') ?? '').split(',').filter(Boolean),
    /** What the page's load depends on: the whole query. */
    key: query.toString(),
    /** To the list with these filters, at a page (the first when no cursor). */
    go: (filters: Record<string, string | undefined>, cursor?: string, pages: string[] = []) =>
      navigate(`${path}${queryString({ ...filters, cursor, pages: pages.join(',') })}`),
  };
}

/** A filter that is one of a few values, or any. */
export function SelectFilter(props: {
  id: string;
  label: string;
  value: string;
  values: readonly string[];
  onChange: (value: string) => void;
  /** The option that means "no filter"; null for a choice without one. */
  any?: string | null;
  /** How a value reads (its underscores as spaces by default). */
  show?: (value: string) => string;
}) {
  const show = props.show ?? ((v: string) => v.replace(/_/g, ' '));
  return (
    <Field id={props.id} label={props.label}>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(valueOf(e))}>
        {props.any !== null && <option value="">{props.any ?? 'Any'}</option>}
        {props.values.map((v) => (
          <option key={v} value={v}>
            {show(v)}
          </option>
        ))}
      </select>
    </Field>
  );
}

export type Column<T> = { label: string; cell: (row: T) => ComponentChildren; class?: string; hideLabel?: boolean };

/**
 * A table of rows, one column a field. Each cell names its column (`data-label`): below 720 px the
 * stylesheet turns every row into a card and shows those names.
 */
export function DataTable<T>(props: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  rowProps?: (row: T) => Record<string, string>;
  busy?: boolean;
}) {
  return (
    <table class="list" aria-busy={props.busy}>
      <caption class="visually-hidden">{props.caption}</caption>
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th key={c.label} scope="col">
              {c.hideLabel ? <span class="visually-hidden">{c.label}</span> : c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={props.rowKey(row)} {...props.rowProps?.(row)}>
            {props.columns.map((c) => (
              <td key={c.label} data-label={c.label} class={c.class}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A page of a list with everything around it: its error (with a retry), "loading" until the first
 * answer, the empty state the page gives, the rows as the page draws them, and the pager.
 */
type PagedListProps<T> = {
  page: Loaded<ApiPage<T>>;
  /** What is listed, for "Loading …". */
  what: string;
  /** Shown when the page has no rows: what to do next. */
  empty: ComponentChildren;
  history: string[];
  onPage: (cursor: string | undefined, history: string[]) => void;
};

export function PagedList<T>(props: PagedListProps<T> & { children: (rows: T[]) => ComponentChildren }) {
  const { page } = props;
  return (
    <>
      <ErrorNotice error={page.error} onRetry={page.reload} />
      {page.loading && !page.data ? (
        <Loading what={props.what} />
      ) : !page.data ? null : page.data.data.length === 0 ? (
        props.empty
      ) : (
        <>
          {props.children(page.data.data)}
          <Pager
            hasMore={page.data.pagination.hasMore}
            next={page.data.pagination.cursor}
            history={props.history}
            onPage={props.onPage}
          />
        </>
      )}
    </>
  );
}

/** A paged list drawn as a table, a row a record (keyed by its id). */
export function PagedTable<T extends { id: string }>(
  props: PagedListProps<T> & { caption: string; columns: Column<T>[] },
) {
  return (
    <PagedList {...props}>
      {(rows) => (
        <DataTable
          caption={props.caption}
          rows={rows}
          rowKey={(r) => r.id}
          columns={props.columns}
          busy={props.page.loading}
        />
      )}
    </PagedList>
  );
}
