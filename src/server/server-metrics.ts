import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of one server: a registry (its own, so several servers can share a process). */
export interface ServerMetrics {
  readonly registry: Registry;
  /** Records one answered request under its route template (`unmatched` for unknown routes). */
  observe(labels: { method: string; route: string; status: number }, seconds: number): void;
}

/** Creates the registry with the request latency histogram and Node's default process metrics. */
export function createServerMetrics(): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'engram_' });
  const latency = new Histogram({
    name: 'engram_http_request_duration_seconds',
    help: 'HTTP request latency by route template, method and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // One labelled child per (method, route, status), kept: prom-client otherwise hashes the labels
  // on every observation.
  const children = new Map<string, { observe(value: number): void }>();
  return {
    registry,
    observe({ method, route, status }, seconds) {
      const key = `${method} ${status} ${route}`;
      let child = children.get(key);
      if (!child) {
        child = latency.labels({ method, route, status: String(status) });
        children.set(key, child);
      }
      child.observe(seconds);
    },
  };
}
