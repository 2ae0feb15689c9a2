import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const installedAi = JSON.parse(readFileSync('node_modules/ai/package.json', 'utf8')) as { version: string };

describe('the ai peer dependency', () => {
  it('is optional and allows only the major the middleware is tested with', () => {
    // The middleware implements one version of the AI SDK's middleware spec, so a new major of
    // `ai` is not assumed to work until the tests run against it.
    const major = installedAi.version.split('.')[0];
    expect(manifest.peerDependencies.ai).toBe(`^${major}`);
    expect(manifest.peerDependenciesMeta.ai?.optional).toBe(true);
  });
});
