import { describe, expect, it } from 'vitest';
import { createHostGuard, HostNotAllowedError, PASSED_VALUES_KEPT } from './host-guard.js';

describe('createHostGuard', () => {
  it('answers a value the same way the first time and after it was remembered', () => {
    const guard = createHostGuard(['memory.lan']);
    for (let round = 0; round < 3; round++) {
      expect(() => guard({ host: 'localhost:3000' })).not.toThrow();
      expect(() => guard({ host: 'memory.lan', origin: 'http://memory.lan' })).not.toThrow();
      expect(() => guard({ host: 'attacker.example' })).toThrow(HostNotAllowedError);
      expect(() => guard({ host: '127.0.0.1', origin: 'null' })).toThrow(HostNotAllowedError);
    }
  });

  it('keeps Host and Origin values apart: a Host that passed is no valid Origin', () => {
    const guard = createHostGuard([]);
    guard({ host: 'localhost:3000' });
    expect(() => guard({ host: 'localhost:3000', origin: 'localhost:3000' })).toThrow(/Origin/);
    guard({ origin: 'http://localhost:3000' });
    expect(() => guard({ host: 'http://localhost:3000' })).toThrow(/Host/);
  });

  it('still checks every value once more values passed than it remembers', () => {
    const guard = createHostGuard([]);
    for (let port = 1; port <= PASSED_VALUES_KEPT * 2; port++) guard({ host: `127.0.0.1:${port}` });
    expect(() => guard({ host: '127.0.0.2:80' })).not.toThrow();
    expect(() => guard({ host: '[::1]:8080' })).not.toThrow();
    expect(() => guard({ host: 'attacker.example:1' })).toThrow(HostNotAllowedError);
  });
});
