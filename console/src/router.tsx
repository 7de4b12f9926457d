import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Every page lives under /console; the server answers each such path with the console. */
export const BASE = '/console';

type Location = { path: string; query: URLSearchParams; hash: string };

function current(): Location {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/';
  return { path, query: new URLSearchParams(location.search), hash: location.hash };
}

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((l) => l()));

/** Goes to a console path (`/analyses?status=failed`), as a link would. */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = `${BASE}${to === '/' ? '' : to}`;
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((l) => l());
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return loc;
}

/** A link within the console: a real `<a href>` (open in a new tab works), followed without a reload. */
export function Link(props: {
  href: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page' | undefined;
}) {
  const { href, children } = props;
  return (
    <a
      class={props.class}
      aria-current={props['aria-current']}
      href={`${BASE}${href === '/' ? '' : href}`}
      onClick={(e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}

/** `pattern` (`/analyses/:id`) against `path`: the named parts, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const a = path.replace(/\/+$/, '').split('/');
  if (p.length !== a.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(':')) params[p[i]!.slice(1)] = decodeURIComponent(a[i]!);
    else if (p[i] !== a[i]) return null;
  }
  return params;
}

/** A query string from filters, leaving out the empty ones. */
export function queryString(values: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}
