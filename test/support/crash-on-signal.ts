/**
 * Test-only preload (`node --import ./test/support/crash-on-signal.ts …`): on SIGUSR2 the process
 * throws an uncaught error, or with `CRASH_KIND=rejection` leaves a promise rejection unhandled, so
 * that tests can check what `engram serve` and `engram mcp` log before they exit. Production code
 * has no such hook.
 */
process.on('SIGUSR2', () => {
  if (process.env.CRASH_KIND === 'rejection') {
    void Promise.reject(new Error('test rejection from crash-on-signal'));
    return;
  }
  throw new Error('test crash from crash-on-signal');
});
