import { Worker } from 'node:worker_threads';

/** A window of health requests: `stop` resolves with the latencies of those it counted. */
export interface HealthWindow {
  stop(): Promise<number[]>;
}

/**
 * Polls /v1/health one request after another (pausing `intervalMs`) from one worker thread for
 * the whole run, so that building and sending the adversarial bodies in this thread never delays
 * a health request. `window()` counts the requests that start after it, until its `stop()`.
 * One warm poller serves every window: a fresh worker per window answered its first requests in
 * 5–10 ms (connection, compiling the HTTP client, cold code), which was most of the "p99" of an
 * input answered within a dozen health requests.
 */
export async function startHealthPoller(port: number, intervalMs: number) {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const http = require('node:http');
     const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
     let counted = null;
     let running = true;
     let inFlight = Promise.resolve();
     parentPort.on('message', (message) => {
       if (message === 'start') counted = [];
       if (message === 'stop') {
         // The request in flight started in the window: its latency is the window's too.
         const window = counted ?? [];
         counted = null;
         inFlight.then(() => parentPort.postMessage(window));
       }
       if (message === 'end') running = false;
     });
     const once = () => (inFlight = new Promise((resolve, reject) => {
       const started = performance.now();
       // Counted only when the window was open when the request started.
       const into = counted;
       http.get({ agent, host: '127.0.0.1', port: workerData.port, path: '/v1/health' }, (response) => {
         response.resume();
         response.on('end', () => { into?.push(performance.now() - started); resolve(); });
       }).on('error', reject);
     }));
     (async () => {
       // Warm up: the connection, the HTTP client's code and the loop below, not counted.
       for (let index = 0; index < 50; index++) await once();
       parentPort.postMessage('ready');
       while (running) {
         await once();
         await new Promise((resolve) => setTimeout(resolve, workerData.intervalMs));
       }
       agent.destroy();
     })();`,
    { eval: true, workerData: { port, intervalMs } },
  );
  await new Promise<void>((resolve) => worker.once('message', () => resolve()));
  return {
    window(): HealthWindow {
      worker.postMessage('start');
      return {
        stop: () =>
          new Promise<number[]>((resolve) => {
            worker.once('message', resolve);
            worker.postMessage('stop');
          }),
      };
    },
    async close(): Promise<void> {
      worker.postMessage('end');
      await worker.terminate();
    },
  };
}
