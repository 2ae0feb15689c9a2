import { useEffect, useState } from 'preact/hooks';

/** The pages, in the order of the navigation. */
export const pages = [
  { id: 'sessions', title: 'Sessions' },
  { id: 'inspector', title: 'Context Inspector' },
  { id: 'working-set', title: 'Working set' },
  { id: 'memories', title: 'Long-term memory' },
  { id: 'procedures', title: 'Procedures & knowledge' },
  { id: 'jobs', title: 'Background jobs' },
] as const;
export type PageId = (typeof pages)[number]['id'];

export interface Route {
  page: PageId;
  params: URLSearchParams;
}

/** `#/inspector?session_id=…` → page and parameters (hash routing: the server serves one page). */
export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?');
  const page = pages.find((entry) => entry.id === path)?.id ?? 'sessions';
  return { page, params: new URLSearchParams(search) };
}

export function hrefOf(page: PageId, params: Record<string, string | null | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) search.set(name, value);
  const text = search.toString();
  return `#/${page}${text ? `?${text}` : ''}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** The session a page is about, from the route (shared by inspector, working set and sessions). */
export const sessionOf = (params: URLSearchParams) => ({
  session_id: params.get('session_id') ?? '',
  namespace: params.get('namespace') ?? '',
  user_id: params.get('user_id') ?? '',
});
