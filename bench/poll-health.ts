import { Worker } from 'node:worker_threads';

/**
 * Polls /v1/health one request after another (pausing `intervalMs`) from a worker thread, so that
 * building and sending the adversarial bodies in this thread never delays a health request.
 * `ready` resolves after a first request that is not counted: a fresh worker's first request
 * opens its connection and compiles the HTTP client (10–25 ms here), which would otherwise be the
 * whole "p99" of an input answered within one or two health requests.
 */
export function pollHealth(port: number, intervalMs: number) {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const http = require('node:http');
     const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
     const latencies = [];
     let running = true;
     parentPort.on('message', () => { running = false; });
     const once = () => new Promise((resolve, reject) => {
       const started = performance.now();
       http.get({ agent, host: '127.0.0.1', port: workerData.port, path: '/v1/health' }, (response) => {
         response.resume();
         response.on('end', () => resolve(performance.now() - started));
       }).on('error', reject);
     });
     (async () => {
       await once();
       parentPort.postMessage('ready');
       while (running) {
         latencies.push(await once());
         await new Promise((resolve) => setTimeout(resolve, workerData.intervalMs));
       }
       agent.destroy();
       parentPort.postMessage(latencies);
     })();`,
    { eval: true, workerData: { port, intervalMs } },
  );
  const ready = new Promise<void>((resolve) => worker.once('message', () => resolve()));
  return {
    ready,
    stop(): Promise<number[]> {
      const latencies = ready.then(() => new Promise<number[]>((resolve) => worker.once('message', resolve)));
      worker.postMessage('stop');
      return latencies.finally(() => worker.terminate());
    },
  };
}
