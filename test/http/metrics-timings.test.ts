import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngram } from '../../src/engram.js';
import { createServer, type EngramServer } from '../../src/server/create-server.js';
import { createServerMetrics } from '../../src/server/server-metrics.js';
import { instrumentStore } from '../../src/stores/instrument-store.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

const temporaryDirectory = useTemporaryDirectories('engram-metrics-');
let server: EngramServer;
let url: string;

// Wired as `engram serve` wires it: the store and the assembler report to the served registry.
beforeAll(async () => {
  const metrics = createServerMetrics();
  const store = instrumentStore(
    await createSqliteStore({ path: join(temporaryDirectory(), 'engram.db') }),
    metrics.observeStore,
  );
  const engram = await createEngram({
    store,
    sweepIntervalMs: 0,
    onTrace: (trace) => metrics.observeTrace(trace),
  });
  server = createServer({ engram, config: { port: 0, logLevel: 'silent' }, metrics });
  ({ url } = await server.listen());
});
afterAll(async () => {
  await server.close();
});

describe('/metrics: store and source timings', () => {
  it('reports store calls, memory sources and assembly beside request latency', async () => {
    const context = await fetch(`${url}/v1/context`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 's1', user_id: 'ada', message: 'What do I like?' }),
    });
    expect(context.status).toBe(200);
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toMatch(
      /engram_store_duration_seconds_count\{operation="sessions\.getSession",outcome="ok"\} [1-9]/,
    );
    expect(text).toMatch(
      /engram_source_duration_seconds_count\{source="[^"]+",section="knowledge",status="ok"\} 1/,
    );
    expect(text).toMatch(/engram_assembly_duration_seconds_count 1/);
    expect(text).toMatch(
      /engram_http_request_duration_seconds_count\{method="POST",route="\/v1\/context",status="200"\} 1/,
    );
  });
});
