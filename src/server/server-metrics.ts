import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { ContextTrace } from '../core/assembly/context-trace.js';

/** Prometheus metrics of one server: a registry (its own, so several servers can share a process). */
export interface ServerMetrics {
  readonly registry: Registry;
  /** Records one answered request under its route template (`unmatched` for unknown routes). */
  observe(labels: { method: string; route: string; status: number }, seconds: number): void;
  /** Records one store call (see `instrumentStore`): `engram_store_duration_seconds`. */
  observeStore(operation: string, seconds: number, ok: boolean): void;
  /** Records an assembled context: its duration and each memory source's time and status. */
  observeTrace(trace: ContextTrace): void;
}

const FAST_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

/** A histogram whose labelled children are kept: prom-client otherwise hashes labels per observation. */
function keptChildren<Labels extends string>(histogram: Histogram<Labels>) {
  const children = new Map<string, { observe(value: number): void }>();
  return (labels: Record<Labels, string>, seconds: number) => {
    const key = Object.values(labels).join('\u0000');
    let child = children.get(key);
    if (!child) {
      child = histogram.labels(labels);
      children.set(key, child);
    }
    child.observe(seconds);
  };
}

/**
 * Creates the registry: request latency per route, store call and memory source latency, assembly
 * latency, and Node's default process metrics.
 */
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
  const requestChildren = new Map<string, { observe(value: number): void }>();
  const storeLatency = new Histogram({
    name: 'engram_store_duration_seconds',
    help: 'Store call latency by operation (sessions.*, memories.*, documents.*, jobs.*) and outcome',
    labelNames: ['operation', 'outcome'] as const,
    buckets: FAST_BUCKETS,
    registers: [registry],
  });
  const storeChildren = new Map<string, { observe(value: number): void }>();
  const source = keptChildren(
    new Histogram({
      name: 'engram_source_duration_seconds',
      help: 'Memory source latency per assembled context, by source and status (ok, timeout, error)',
      labelNames: ['source', 'section', 'status'] as const,
      buckets: FAST_BUCKETS,
      registers: [registry],
    }),
  );
  const assembly = new Histogram({
    name: 'engram_assembly_duration_seconds',
    help: 'Context assembly latency (retrieval, history read and budgeting)',
    buckets: FAST_BUCKETS,
    registers: [registry],
  });
  return {
    registry,
    observe({ method, route, status }, seconds) {
      // Hot path (every request): the key from the three values, the label object only when new.
      const key = `${method}\u0000${route}\u0000${status}`;
      let child = requestChildren.get(key);
      if (!child) {
        child = latency.labels({ method, route, status: String(status) });
        requestChildren.set(key, child);
      }
      child.observe(seconds);
    },
    observeStore(operation, seconds, ok) {
      // Hot path (every store call): one map lookup, no label object, after the first call.
      const key = ok ? operation : `${operation}!`;
      let child = storeChildren.get(key);
      if (!child) {
        child = storeLatency.labels({ operation, outcome: ok ? 'ok' : 'error' });
        storeChildren.set(key, child);
      }
      child.observe(seconds);
    },
    observeTrace(trace) {
      if (trace.durationMs !== undefined) assembly.observe(trace.durationMs / 1_000);
      for (const report of trace.sources) {
        source(
          { source: report.name, section: report.section, status: report.status },
          report.durationMs / 1_000,
        );
      }
    },
  };
}
