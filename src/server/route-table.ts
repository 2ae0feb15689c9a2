/** The routes a server registered, to tell "unknown path" (404) from "wrong method" (405). */
export interface RouteTable {
  add(methods: string | string[], url: string): void;
  /** Methods registered for a request path (query string ignored); empty when no route matches it. */
  allowedMethods(path: string): string[];
}

/** Turns a Fastify route url (`/v1/working-memory/:session_id`) into an anchored pattern. */
function toPattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

export function createRouteTable(): RouteTable {
  const routes: { method: string; pattern: RegExp }[] = [];
  return {
    add(methods, url) {
      const pattern = toPattern(url);
      for (const method of [methods].flat()) routes.push({ method, pattern });
    },
    allowedMethods(path) {
      const bare = path.split('?')[0] ?? path;
      return [...new Set(routes.filter((route) => route.pattern.test(bare)).map((route) => route.method))];
    },
  };
}
