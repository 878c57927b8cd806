import { useEffect, useState } from 'react';

/**
 * Routes live in the URL's fragment (`/#/servers/<id>`): the API serves the console at `/` only, so no route of
 * the console can shadow one of the API's, and every page can be bookmarked and reloaded.
 */
export interface Route {
  path: string[];
  query: URLSearchParams;
}

function current(): Route {
  const hash = window.location.hash.replace(/^#/, '') || '/';
  const [path, query = ''] = hash.split('?', 2);
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(query) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** A fragment link to one of the console's own pages, from path segments (each encoded). */
export function href(...segments: string[]): string {
  return '#/' + segments.map(encodeURIComponent).join('/');
}

export function navigate(to: string): void {
  window.location.hash = to.replace(/^#/, '');
}
