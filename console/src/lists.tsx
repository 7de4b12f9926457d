import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Loaded } from './hooks.js';
import { navigate, queryString, useLocation } from './router.js';
import { ErrorNotice, Field, Loading, Pager, valueOf } from './ui.js';

/**
 * What every list page shares, so each says only what is its own (its filters, its columns, what to
 * do when it is empty): the page's place in the list from the URL, select filters, a table that folds
 * into cards at narrow widths, and the loading, error, empty and paging states around it.
 */

type Filters = Record<string, string | undefined>;

/** A page of any list the API pages. */
type ApiPage<T> = { data: T[]; pagination: { hasMore: boolean; cursor: string | null } };

/**
 * A list page's filters and place in the list, kept in the URL (reload, back and shared links keep
 * them): the cursor of the page shown and the cursors of the pages before it, for "← Newer".
 */
export function useListQuery(path: string) {
  const { query } = useLocation();
  const get = (name: string) => query.get(name) ?? '';
  const history = (query.get('pages') ?? '').split(',').filter(Boolean);
  const go = (filters: Filters, cursor?: string, pages: string[] = []) =>
    navigate(`${path}${queryString({ ...filters, cursor, pages: pages.join(',') })}`);
  return {
    get,
    cursor: query.get('cursor') ?? undefined,
    /** What the page's load depends on: the whole query. */
    key: query.toString(),
    /** To the list with these filters, at a page (the first when no cursor). */
    go,
    /** The pager of the list with these filters. */
    paging: (filters: Filters): Paging => ({ history, onPage: (cursor, pages) => go(filters, cursor, pages) }),
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

/** A table's rows: its caption (for screen readers), columns, and each row's key (its `id` unless said). */
export type TableSpec<T> = {
  caption: string;
  columns: Column<T>[];
  rowKey?: (row: T) => string;
  rowProps?: (row: T) => Record<string, string>;
};

/**
 * A table of rows, one column a field. Each cell names its column (`data-label`): below 720 px the
 * stylesheet turns every row into a card and shows those names.
 */
export function DataTable<T>(props: TableSpec<T> & { rows: T[]; busy?: boolean }) {
  const key = props.rowKey ?? ((row: T) => (row as { id: string }).id);
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
          <tr key={key(row)} {...props.rowProps?.(row)}>
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

/** How a list's rows are drawn: by the page (`children`), or as a table. */
type Rows<T> =
  { children: (rows: T[]) => ComponentChildren; table?: never } | { table: TableSpec<T>; children?: never };

function drawRows<T>(how: Rows<T>, rows: T[], busy: boolean) {
  return how.table ? <DataTable {...how.table} rows={rows} busy={busy} /> : how.children!(rows);
}

/**
 * A list with the states around it: its error (with a retry), "loading" until the first answer, the
 * empty state the page gives (what to do next), or the rows.
 */
export function ListStates<T>(
  props: {
    loaded: Loaded<unknown>;
    rows: T[] | undefined;
    /** What is listed, for "Loading …". */
    what: string;
    /** Shown when there are no rows: what to do next. */
    empty: ComponentChildren;
  } & Rows<T>,
) {
  const { loaded, rows } = props;
  return (
    <>
      <ErrorNotice error={loaded.error} onRetry={loaded.reload} />
      {loaded.loading && !rows ? (
        <Loading what={props.what} />
      ) : !rows ? null : rows.length === 0 ? (
        props.empty
      ) : (
        drawRows(props, rows, loaded.loading)
      )}
    </>
  );
}

/** Where a paged list is: the cursors of the pages before this one, and how to go to another. */
export type Paging = { history: string[]; onPage: (cursor: string | undefined, history: string[]) => void };

/** Paging kept in the page itself (a list inside a page, whose URL is the page's): back to the first page on `reset`. */
export function useLocalPaging() {
  const [at, setAt] = useState<{ cursor?: string; history: string[] }>({ history: [] });
  const paging: Paging = { history: at.history, onPage: (cursor, history) => setAt({ cursor, history }) };
  return { cursor: at.cursor, paging, reset: () => setAt({ history: [] }) };
}

/** A page of a list the API pages, with its states and the pager. */
export function PagedList<T>(
  props: { page: Loaded<ApiPage<T>>; paging: Paging; what: string; empty: ComponentChildren } & Rows<T>,
) {
  const { page } = props;
  return (
    <ListStates loaded={page} rows={page.data?.data} what={props.what} empty={props.empty}>
      {(rows) => (
        <>
          {drawRows(props, rows, page.loading)}
          <Pager
            hasMore={page.data!.pagination.hasMore}
            next={page.data!.pagination.cursor}
            history={props.paging.history}
            onPage={props.paging.onPage}
          />
        </>
      )}
    </ListStates>
  );
}
