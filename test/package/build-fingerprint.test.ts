import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFingerprint, FINGERPRINT_FILE, isBuildCurrent } from '../../scripts/build-fingerprint.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

const temporaryDirectory = useTemporaryDirectories('engram-fingerprint-');

function project(): string {
  const root = temporaryDirectory();
  mkdirSync(join(root, 'src', 'core'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'src', 'core', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'package.json'), '{"name":"engram"}\n');
  return root;
}

describe('the build fingerprint that lets `prepare` skip a current build', () => {
  it('is current only when dist/ was stamped from exactly the sources that are there', () => {
    const root = project();
    expect(isBuildCurrent(root)).toBe(false); // never built
    writeFileSync(join(root, FINGERPRINT_FILE), `${buildFingerprint(root)}\n`);
    expect(isBuildCurrent(root)).toBe(true);
    writeFileSync(join(root, 'src', 'core', 'a.ts'), 'export const a = 2;\n');
    expect(isBuildCurrent(root)).toBe(false); // an edit
  });

  it('changes with a new file, a renamed file and the manifest, not with dist/ itself', () => {
    const root = project();
    const before = buildFingerprint(root);
    writeFileSync(join(root, 'dist', 'index.js'), 'built');
    expect(buildFingerprint(root)).toBe(before);
    writeFileSync(join(root, 'src', 'core', 'b.ts'), '');
    const added = buildFingerprint(root);
    expect(added).not.toBe(before);
    writeFileSync(join(root, 'package.json'), '{"name":"engram","version":"2.0.0"}\n');
    expect(buildFingerprint(root)).not.toBe(added);
  });
});
