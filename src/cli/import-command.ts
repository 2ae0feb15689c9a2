import { statSync } from 'node:fs';
import { EngramError, ValidationError } from '../core/errors.js';
import { truncateText } from '../core/preview-value.js';
import type { MemoryRecordInput } from '../core/schemas/memory-record.js';
import { createTenantImporter, type TenantImporter } from '../engine/transfer/import-tenant.js';
import type { Engram } from '../engram.js';
import type { CliIo } from './cli-io.js';
import { type StoreFlags, withEngram } from './open-engram.js';
import { createProgressBar, type ProgressBar } from './progress-bar.js';
import { amsRecordsOf, toMemoryInputFromAms } from './read-ams-dump.js';
import { readFileLines, readUtf8File } from './read-file-lines.js';
import {
  createRunSummary,
  formatSummary,
  type ItemOutcome,
  type RunSummary,
  recordOutcome,
} from './run-summary.js';

/** Characters of a record's id quoted in its summary line (an id may be any length in a dump). */
const ITEM_ID_CHARS = 80;

export interface ImportFlags extends StoreFlags {
  /** Default: the tenant named in an engram export, else `default`. */
  tenant?: string;
  format?: 'auto' | 'engram' | 'ams';
}

/** Largest AMS dump read as one JSON document (JSON Lines files stream and have no limit). */
export const MAX_JSON_DOCUMENT_BYTES = 256 * 1024 * 1024;

/**
 * Largest line read (a record, a session with its messages, a page of an AMS dump): under V8's
 * longest string (2^29 - 24 characters, at most one per byte), past which reading the line would
 * crash with a RangeError instead of saying why.
 */
export const MAX_JSON_LINE_BYTES = 500 * 1024 * 1024;

/** Limits of one import; tests lower them rather than write huge files. */
export interface ImportLimits {
  maxDocumentBytes?: number;
  maxLineBytes?: number;
}
/** AMS records created per call (the engine's batch limit is 1,000). */
const AMS_BATCH = 100;

/** Reads the file's lines anew, each time called (`readFileLines`). */
type Lines = () => AsyncGenerator<string>;

async function countLines(lines: Lines): Promise<number> {
  let count = 0;
  for await (const line of lines()) if (line.trim() !== '') count++;
  return count;
}

async function firstLine(lines: Lines): Promise<string> {
  for await (const line of lines()) if (line.trim() !== '') return line;
  return '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function importEngramExport(
  lines: Lines,
  engram: Engram,
  flags: ImportFlags,
  progress: ProgressBar,
  summary: RunSummary,
): Promise<string> {
  let importer: TenantImporter | undefined;
  let tenantId = flags.tenant ?? 'default';
  let number = 0;
  for await (const text of lines()) {
    number++;
    if (text.trim() === '') continue;
    const value = parseJson(text);
    if (value === undefined) {
      recordOutcome(summary, { status: 'failed', item: `line ${number}`, reason: 'not JSON' });
      progress.increment();
      continue;
    }
    if (!importer) {
      const header = value as { type?: unknown; tenantId?: unknown };
      if (header.type === 'engram-export' && typeof header.tenantId === 'string') {
        tenantId = flags.tenant ?? header.tenantId;
      }
      importer = createTenantImporter(engram.store, tenantId);
    }
    for (const outcome of await importer.importLine(value)) {
      recordOutcome(
        summary,
        outcome.status === 'failed' ? { ...outcome, item: `line ${number} (${outcome.item})` } : outcome,
      );
    }
    if ((value as { type?: unknown }).type !== 'engram-export') progress.increment();
  }
  for (const outcome of (await importer?.finish()) ?? []) recordOutcome(summary, outcome);
  return tenantId;
}

/** Creates one batch of AMS records; on a batch failure, record by record, to name the bad one. */
async function createAmsBatch(
  engram: Engram,
  tenantId: string,
  batch: { item: string; input: MemoryRecordInput }[],
): Promise<ItemOutcome[]> {
  // Ids as they are stored: trimmed (" y " is stored as "y"), so a re-run finds them.
  const idOf = (input: MemoryRecordInput) => input.id?.trim();
  const ids = batch.flatMap(({ input }) => idOf(input) ?? []);
  const present = new Set(
    ids.length > 0 ? (await engram.store.memories.getMemories(tenantId, ids)).map((memory) => memory.id) : [],
  );
  const skipped = batch.filter(({ input }) => {
    const id = idOf(input);
    return id !== undefined && present.has(id);
  });
  const fresh = batch.filter((entry) => !skipped.includes(entry));
  const outcomes: ItemOutcome[] = skipped.map(({ item }) => ({
    status: 'skipped',
    item,
    reason: 'already present',
  }));
  if (fresh.length === 0) return outcomes;
  try {
    const { inserted, duplicates } = await engram.memories.create(
      tenantId,
      fresh.map(({ input }) => input),
    );
    const duplicateOf = new Map(
      duplicates.map((duplicate) => [duplicate.requestedId, duplicate.existing.id]),
    );
    for (const { item, input } of fresh) {
      const id = idOf(input);
      const existing = id === undefined ? undefined : duplicateOf.get(id);
      outcomes.push(
        existing === undefined
          ? { status: 'created', item }
          : { status: 'deduplicated', item, reason: 'same text and scope as a stored memory' },
      );
    }
    if (inserted.length + duplicates.length !== fresh.length) throw new Error('Unexpected insert result');
    return outcomes;
  } catch (error) {
    if (!(error instanceof EngramError) || fresh.length === 1) {
      if (error instanceof EngramError)
        return [...outcomes, { status: 'failed', item: fresh[0]?.item ?? '', reason: error.message }];
      throw error;
    }
    for (const entry of fresh) outcomes.push(...(await createAmsBatch(engram, tenantId, [entry])));
    return outcomes;
  }
}

async function importAmsDump(
  file: string,
  engram: Engram,
  tenantId: string,
  records: AsyncIterable<unknown> | Iterable<unknown>,
  progress: ProgressBar,
  summary: RunSummary,
): Promise<void> {
  let batch: { item: string; input: MemoryRecordInput }[] = [];
  const flush = async () => {
    for (const outcome of await createAmsBatch(engram, tenantId, batch)) recordOutcome(summary, outcome);
    progress.increment(batch.length);
    batch = [];
  };
  let number = 0;
  for await (const record of records) {
    number++;
    const id = (record as { id?: unknown } | null)?.id;
    const item = `record ${number}${typeof id === 'string' ? ` (${truncateText(id, ITEM_ID_CHARS)})` : ''} of ${file}`;
    try {
      batch.push({ item, input: toMemoryInputFromAms(record) });
    } catch (error) {
      if (!(error instanceof EngramError)) throw error;
      recordOutcome(summary, { status: 'failed', item, reason: error.message });
      progress.increment();
    }
    if (batch.length >= AMS_BATCH) await flush();
  }
  if (batch.length > 0) await flush();
}

async function* jsonLines(lines: Lines): AsyncGenerator<unknown> {
  for await (const text of lines()) {
    if (text.trim() === '') continue;
    const value = parseJson(text);
    // A line that is not JSON is passed on as text: the record check reports it, alone.
    if (value === undefined) yield text.slice(0, 80);
    // A line may hold a search response or an array (pages of a dump, one per line).
    else yield* amsRecordsOf(value);
  }
}

/**
 * `engram import FILE`: an engram export (idempotent, resumable: see `createTenantImporter`) or
 * an AMS long-term memory dump (records created through engram, deduplicated by content and
 * skipped by id when present). Progress on stderr, then a summary; exit code 1 if anything failed.
 */
export async function runImport(
  file: string,
  flags: ImportFlags,
  io: CliIo,
  limits: ImportLimits = {},
): Promise<number> {
  const maxDocumentBytes = limits.maxDocumentBytes ?? MAX_JSON_DOCUMENT_BYTES;
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) throw new ValidationError(`No file ${file}`);
  const maxLineBytes = limits.maxLineBytes ?? MAX_JSON_LINE_BYTES;
  const lines = () => readFileLines(file, { maxLineBytes });
  const head = await firstLine(lines);
  const first = parseJson(head) as { type?: unknown } | undefined;
  const format =
    flags.format && flags.format !== 'auto'
      ? flags.format
      : first?.type === 'engram-export'
        ? 'engram'
        : 'ams';
  // An AMS dump that may be one JSON document (a search response, an array) rather than JSON Lines.
  // Only a first line that is not JSON alone says it must be one (spread over lines): a first line
  // that is an array or a search response may as well be the first page of a JSON Lines dump.
  const page = typeof first === 'object' && first !== null && (Array.isArray(first) || 'memories' in first);
  const document = format === 'ams' && (first === undefined || page);
  const size = statSync(file).size;
  if (document && first === undefined && size > maxDocumentBytes) {
    throw new ValidationError(
      `${file} is larger than ${maxDocumentBytes} bytes (the largest JSON document read whole) and its first line is not JSON alone; write it as JSON Lines (one record per line)`,
    );
  }
  // A file that does not parse as one document is read as JSON Lines: each line that is not JSON
  // fails alone, and the valid records are still imported.
  const whole = document && size <= maxDocumentBytes ? parseJson(readUtf8File(file)) : undefined;
  const records = whole === undefined ? undefined : amsRecordsOf(whole);

  return withEngram(flags, io, async (engram) => {
    const summary = createRunSummary();
    const total = records ? records.length : (await countLines(lines)) - (format === 'engram' ? 1 : 0);
    const progress = createProgressBar(io.stderr, { label: 'import', total });
    let tenantId = flags.tenant ?? 'default';
    try {
      if (format === 'engram') tenantId = await importEngramExport(lines, engram, flags, progress, summary);
      else await importAmsDump(file, engram, tenantId, records ?? jsonLines(lines), progress, summary);
    } finally {
      progress.stop();
    }
    // Vectors are not part of a file: the current records get this engram's embeddings now.
    let embedded = 0;
    for (
      let batch = await engram.memories.reembed(tenantId);
      batch > 0;
      batch = await engram.memories.reembed(tenantId)
    ) {
      embedded += batch;
    }
    io.stderr.write(
      formatSummary(
        `imported ${format === 'ams' ? 'AMS records' : 'export'} into tenant ${JSON.stringify(tenantId)}`,
        summary,
      ),
    );
    if (embedded > 0) io.stderr.write(`embedded ${embedded} memories\n`);
    return summary.failed > 0 ? 1 : 0;
  });
}
