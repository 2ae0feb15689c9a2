import { readdirSync, statSync } from 'node:fs';
import { basename, extname, join, relative } from 'node:path';
import { ValidationError } from '../core/errors.js';

/** How a file is read for the knowledge base, by extension (lower case). */
export const DOCUMENT_FORMATS: Record<string, 'markdown' | 'text' | 'html'> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'markdown',
  '.txt': 'text',
  '.text': 'text',
  '.html': 'html',
  '.htm': 'html',
};

/** A file found for ingestion: its path, display name and format (null: not a document type). */
export interface FoundFile {
  path: string;
  /** Path relative to the directory given (the file name for a file given directly). */
  name: string;
  format: 'markdown' | 'text' | 'html' | null;
}

/** Most files one `engram ingest` walks: a bound on the work and memory of one run. */
export const MAX_FILES = 100_000;

/**
 * The files under each path, recursively, in a stable order (sorted by name); hidden entries
 * (`.git`, `.DS_Store`) and `node_modules` are not entered. Files of other types are returned with
 * `format: null`, so the summary can say they were skipped.
 */
export function findDocuments(paths: readonly string[]): FoundFile[] {
  const found: FoundFile[] = [];
  const visit = (path: string, root: string) => {
    if (found.length >= MAX_FILES) {
      throw new ValidationError(
        `More than ${MAX_FILES} files under ${paths.join(', ')}; ingest fewer at a time`,
      );
    }
    const stats = statSync(path);
    if (stats.isDirectory()) {
      for (const entry of readdirSync(path).sort()) {
        if (entry.startsWith('.') || entry === 'node_modules') continue;
        visit(join(path, entry), root);
      }
    } else if (stats.isFile()) {
      const name = path === root ? basename(path) : relative(root, path).split('\\').join('/');
      found.push({ path, name, format: DOCUMENT_FORMATS[extname(path).toLowerCase()] ?? null });
    }
  };
  for (const path of paths) visit(path, path);
  return found;
}
