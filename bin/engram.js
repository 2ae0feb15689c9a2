#!/usr/bin/env node
// Published entry point: runs the compiled CLI. dist/ is built by `npm run build`, which
// `npm install` runs in a clone (the `prepare` script) and which a published package ships.
import('../dist/cli/main.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist')) {
    console.error(
      'engram: the compiled CLI (dist/) is missing. In a clone, run `npm install` or `npm run build`.',
    );
    process.exit(1);
  }
  throw error;
});
