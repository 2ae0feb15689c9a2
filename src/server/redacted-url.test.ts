import { describe, expect, it } from 'vitest';
import { redactedUrl } from './open-configured-store.js';

describe('redactedUrl', () => {
  it('hides a password before the host and every secret the client reads from the query', () => {
    const shown = redactedUrl(
      'postgres://engram:hunter2@db:5432/engram?password=s3cret&sslpassword=k3y&sslkey=/keys/a.pem&schema=tenant1',
    );
    for (const secret of ['hunter2', 's3cret', 'k3y', '/keys/a.pem']) expect(shown).not.toContain(secret);
    expect(shown).toContain('schema=tenant1');
    expect(shown).toContain('engram:***@db:5432');
  });
});
