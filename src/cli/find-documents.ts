import { readdirSync, realpathSync, type Stats, statSync } from 'node:fs';
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
  /** Why the entry could not be read (a dangling or looping link): it fails alone. */
  unreadable?: string;
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
  // Directories entered, by real path: a link back to an ancestor is not walked again.
  const entered = new Set<string>();
  const visit = (path: string, root: string) => {
    if (found.length >= MAX_FILES) {
      throw new ValidationError(
        `More than ${MAX_FILES} files under ${paths.join(', ')}; ingest fewer at a time`,
      );
    }
    const name = path === root ? basename(path) : relative(root, path).split('\\').join('/');
    let stats: Stats;
    try {
      stats = statSync(path);
    } catch (error) {
      // A link to nothing, or to itself: that entry fails, the rest of the tree goes on.
      const code = (error as { code?: string }).code ?? 'unreadable';
      found.push({ path, name, format: null, unreadable: `cannot be read (${code})` });
      return;
    }
    if (stats.isDirectory()) {
      const real = realpathSync(path);
      if (entered.has(real)) return;
      entered.add(real);
      for (const entry of readdirSync(path).sort()) {
        if (entry.startsWith('.') || entry === 'node_modules') continue;
        visit(join(path, entry), root);
      }
    } else if (stats.isFile()) {
      found.push({ path, name, format: DOCUMENT_FORMATS[extname(path).toLowerCase()] ?? null });
    }
  };
  for (const path of paths) visit(path, path);
  return found;
}
