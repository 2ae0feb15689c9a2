import { describe, expect, it } from 'vitest';
import { redactedStoreUrl } from '../server/open-configured-store.js';
import { causeWithoutUrlSecrets, redactedUrl, withoutUrlSecrets } from './redacted-url.js';

describe('redactedUrl', () => {
  it('hides the user info and every query value of a provider URL', () => {
    const shown = redactedUrl('https://user:k3y@llm.example/v1/chat/completions?api-key=s3cret&x=1');
    for (const secret of ['user', 'k3y', 's3cret']) expect(shown).not.toContain(secret);
    expect(shown).toBe('https://***:***@llm.example/v1/chat/completions?api-key=***&x=***');
    expect(redactedUrl('http://localhost:11434/v1')).toBe('http://localhost:11434/v1');
    expect(redactedUrl('not a url')).toBe('(unparsable URL)');
  });

  it('replaces the URL inside a text and an error, which fetch quotes', () => {
    const url = 'http://u:k3y@host/v1?key=s3cret';
    expect(withoutUrlSecrets(`cannot fetch ${url}: no`, url)).toBe(
      'cannot fetch http://***:***@host/v1?key=***: no',
    );
    const cause = causeWithoutUrlSecrets(new TypeError(`bad ${url}`), url) as Error;
    expect(cause.name).toBe('TypeError');
    expect(`${cause.message} ${cause.stack}`).not.toMatch(/k3y|s3cret/);
    const clean = new Error('fetch failed');
    expect(causeWithoutUrlSecrets(clean, url)).toBe(clean);
  });
});

describe('redactedStoreUrl', () => {
  it('hides a password before the host and every secret the client reads from the query', () => {
    const shown = redactedStoreUrl(
      'postgres://engram:hunter2@db:5432/engram?password=s3cret&sslpassword=k3y&sslkey=/keys/a.pem&schema=tenant1',
    );
    for (const secret of ['hunter2', 's3cret', 'k3y', '/keys/a.pem']) expect(shown).not.toContain(secret);
    expect(shown).toContain('schema=tenant1');
    expect(shown).toContain('engram:***@db:5432');
  });
});
