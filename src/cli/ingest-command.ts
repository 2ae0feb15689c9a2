import { statSync } from 'node:fs';
import TurndownService from 'turndown';
import { EngramError, ValidationError } from '../core/errors.js';
import { MAX_DOCUMENT_CHARS } from '../engine/long-term/knowledge-base.js';
import type { Engram } from '../engram.js';
import type { CliIo } from './cli-io.js';
import { type FoundFile, findDocuments } from './find-documents.js';
import { type StoreFlags, withEngram } from './open-engram.js';
import { createProgressBar } from './progress-bar.js';
import { readTextFile } from './read-text-file.js';
import { createRunSummary, formatSummary, type ItemOutcome, recordOutcome } from './run-summary.js';

export interface IngestFlags extends StoreFlags {
  tenant: string;
  agent: string;
}

// HTML becomes Markdown (turndown), so headings still split the document into sections.
const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' }).remove([
  'script',
  'style',
  'noscript',
]);

async function chunkIdsOf(engram: Engram, tenantId: string, agentId: string, documentId: string) {
  const { memories } = await engram.memories.list(
    tenantId,
    { agentId: { eq: agentId }, documentId: { eq: documentId } },
    { limit: 1_000, order: 'created_asc' },
  );
  return memories.map((memory) => memory.id).join(' ');
}

async function ingestFile(engram: Engram, flags: IngestFlags, file: FoundFile, known: Map<string, string>) {
  const item = file.path;
  if (file.unreadable) return { status: 'failed', item, reason: file.unreadable } as const;
  if (file.format === null) return { status: 'skipped', item, reason: 'not Markdown, text or HTML' } as const;
  // Bytes ≥ characters in UTF-8, so a file this large cannot be under the limit either.
  if (statSync(file.path).size > MAX_DOCUMENT_CHARS * 4) {
    return {
      status: 'failed',
      item,
      reason: `larger than the ${MAX_DOCUMENT_CHARS}-character document limit`,
    } as const;
  }
  const raw = readTextFile(file.path);
  const content = file.format === 'html' ? turndown.turndown(raw) : raw;
  if (content.trim() === '') return { status: 'skipped', item, reason: 'empty' } as const;
  const before = known.get(file.name);
  const document = await engram.knowledge.ingest(flags.tenant, {
    agentId: flags.agent,
    name: file.name,
    content,
    format: file.format === 'text' ? 'text' : 'markdown',
  });
  if (before === undefined) return { status: 'created', item } as const;
  const unchanged = before === (await chunkIdsOf(engram, flags.tenant, flags.agent, document.documentId));
  return unchanged
    ? ({ status: 'deduplicated', item, reason: 'unchanged since the last ingest' } as const)
    : ({ status: 'created', item, reason: 'replaced the earlier version' } as const);
}

/**
 * `engram ingest PATH…`: knowledge documents for one agent, whole directories at a time. A file's
 * name in the knowledge base is its path relative to the directory given, so ingesting the same
 * tree again replaces changed documents and leaves unchanged ones as they are.
 */
export async function runIngest(paths: string[], flags: IngestFlags, io: CliIo): Promise<number> {
  if (paths.length === 0) throw new ValidationError('ingest needs at least one file or directory');
  for (const path of paths) {
    if (!statSync(path, { throwIfNoEntry: false })) throw new ValidationError(`No file or directory ${path}`);
  }
  const files = findDocuments(paths);
  return withEngram(flags, io, async (engram) => {
    const known = new Map<string, string>();
    for (const document of await engram.knowledge.list(flags.tenant, flags.agent)) {
      known.set(document.name, await chunkIdsOf(engram, flags.tenant, flags.agent, document.documentId));
    }
    const summary = createRunSummary();
    const progress = createProgressBar(io.stderr, { label: 'ingest', total: files.length });
    try {
      // A document's name is its path relative to the path given: two paths can name two files
      // alike (a/index.md, b/index.md), and the second would replace the first. It fails instead.
      const named = new Map<string, string>();
      for (const file of files) {
        let outcome: ItemOutcome;
        const first = file.format === null ? undefined : named.get(file.name);
        if (file.format !== null && first === undefined) named.set(file.name, file.path);
        try {
          outcome =
            first === undefined
              ? await ingestFile(engram, flags, file, known)
              : {
                  status: 'failed',
                  item: file.path,
                  reason: `its document name ${JSON.stringify(file.name)} is ${first}'s too (ingest them in separate runs, or rename one)`,
                };
        } catch (error) {
          if (!(error instanceof EngramError)) throw error;
          outcome = { status: 'failed', item: file.path, reason: error.message };
        }
        recordOutcome(summary, outcome);
        progress.increment();
      }
    } finally {
      progress.stop();
    }
    io.stderr.write(
      formatSummary(
        `ingested into agent ${JSON.stringify(flags.agent)} (tenant ${JSON.stringify(flags.tenant)})`,
        summary,
      ),
    );
    return summary.failed > 0 ? 1 : 0;
  });
}
