import type { ErrorShape } from '../describe-error.js';
import type { RouteDocs } from '../route-docs.js';

/** A route as registered (one method), with what its `config` says about it. */
export interface DocumentedRoute {
  method: string;
  /** Fastify's url, e.g. `/v1/working-memory/:session_id`. */
  url: string;
  docs: RouteDocs | undefined;
  permission: string;
  errorShape: ErrorShape;
}

/** `/v1/working-memory/:session_id` → `/v1/working-memory/{session_id}`, and the parameter names. */
export function toOpenApiPath(url: string): { path: string; names: string[] } {
  const names: string[] = [];
  const path = url
    .split('/')
    .map((segment) => {
      if (segment === '*') {
        names.push('wildcard');
        return '{wildcard}';
      }
      if (!segment.startsWith(':')) return segment;
      // A Fastify parameter may carry a regular expression: `:id(^\\d+$)`.
      const name = segment.slice(1).replace(/\(.*$/, '');
      names.push(name);
      return `{${name}}`;
    })
    .join('/');
  return { path, names };
}

/** `get` + `/v1/working-memory/{session_id}/messages` → `getV1WorkingMemoryBySessionIdMessages`. */
export function operationIdOf(method: string, path: string): string {
  const words = (text: string) =>
    text
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((word) => word[0]?.toUpperCase() + word.slice(1));
  const segments = path.split('/').filter(Boolean);
  const parts = segments.flatMap((segment) =>
    segment.startsWith('{') ? ['By', ...words(segment)] : words(segment),
  );
  // `/v1/working-memory/` and `/v1/working-memory` are both served; their ids must differ.
  const slash = path.length > 1 && path.endsWith('/') ? ['Slash'] : [];
  return [method.toLowerCase(), ...parts, ...slash].join('');
}
