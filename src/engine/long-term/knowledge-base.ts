import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { cutText } from '../../core/cut-text.js';
import { NotFoundError, parseWith } from '../../core/errors.js';
import { createEventLoopSlicer } from '../../core/event-loop-slicer.js';
import { MAX_TAG_CHARS, type MemoryRecord } from '../../core/schemas/memory-record.js';
import type { TokenCounter } from '../../core/tokens/token-counter.js';
import { chunkDocumentSteps, type DocumentChunk } from '../../retrieval/chunk-document.js';
import type { LongTermMemory } from './long-term-memory.js';

/** Largest document accepted (characters): about 5 MB of text. */
export const MAX_DOCUMENT_CHARS = 5_000_000;

export const documentInputSchema = z.object({
  agentId: z.string().min(1).max(256),
  /** Display name, shown as the source in contexts (`Source: HR Policy 2025.md`). */
  name: z.string().trim().min(1).max(512),
  content: z
    .string()
    .max(MAX_DOCUMENT_CHARS)
    .refine((text) => text.trim().length > 0, 'Document is empty'),
  format: z.enum(['markdown', 'text']).default('markdown'),
  /** Stable id; uploading again under the same id replaces the document. Default: from agent + name. */
  documentId: z.string().min(1).max(256).optional(),
  chunkTokens: z.number().int().min(32).max(4_000).default(350),
  overlapTokens: z.number().int().min(0).max(1_000).default(50),
});
export type DocumentInput = z.input<typeof documentInputSchema>;

/** How far an ingest has got: chunking (chunks so far), then storing (chunks stored of `total`). */
export interface IngestProgress {
  phase: 'chunking' | 'storing' | 'done';
  chunks: number;
  stored: number;
  /** Known once chunking is done. */
  total: number | null;
}

export interface IngestOptions {
  /** Called whenever the ingest lets the event loop run (about every DEFAULT_SLICE_MS, 2 ms, of work). */
  onProgress?: (progress: IngestProgress) => void | Promise<void>;
  /** Stops the ingest between steps (the chunks stored so far stay; ingesting again replaces them). */
  signal?: AbortSignal;
  /** Work between two yields to the event loop, in ms (default 10; 0 yields after every step). */
  sliceMs?: number;
}

export interface KnowledgeDocument {
  documentId: string;
  agentId: string;
  name: string;
  chunks: number;
  createdAt: string;
}

/** Knowledge documents per agent: chunked, embedded, searchable with source attribution. */
export interface KnowledgeBase {
  /**
   * Chunks, embeds and stores a document, replacing an earlier one with the same id. Any size up to
   * MAX_DOCUMENT_CHARS; the work runs in slices of about 2 ms (DEFAULT_SLICE_MS) that yield to the event loop, so a
   * server keeps answering meanwhile (large uploads over REST run it as a background job instead).
   */
  ingest(tenantId: string, input: DocumentInput, options?: IngestOptions): Promise<KnowledgeDocument>;
  list(tenantId: string, agentId: string): Promise<KnowledgeDocument[]>;
  delete(tenantId: string, agentId: string, documentId: string): Promise<number>;
  /** One page of a document's chunks in document order, with how many it has (unknown document: 404). */
  chunks(
    tenantId: string,
    agentId: string,
    documentId: string,
    page: { limit: number; offset: number },
  ): Promise<{ chunks: MemoryRecord[]; total: number }>;
  /** The agent's chunks most relevant to `query` (hybrid search), best first, with their document. */
  search(tenantId: string, request: KnowledgeSearchRequest): Promise<KnowledgeHit[]>;
}

export interface KnowledgeSearchRequest {
  agentId: string;
  query: string;
  /** Most chunks answered; default 5. */
  limit?: number;
}

/** One chunk found by `search`: its text, document, relevance in [0, 1] and place in the document. */
export interface KnowledgeHit {
  id: string;
  documentId: string;
  /** The document's name. */
  source: string;
  text: string;
  relevance: number;
  chunkIndex: number | null;
}

const PAGE = 1_000;
/** Chunks embedded and stored per step: one step's embedding work stays short. */
const STORE_PAGE = 16;

/** The id a document gets when the caller names none: from its agent and name. */
export function documentIdOf(agentId: string, name: string): string {
  return `doc_${createHash('sha256')
    .update(JSON.stringify([agentId, name]))
    .digest('hex')
    .slice(0, 24)}`;
}

/** A stored chunk's place in its document (metadata written at ingest). */
const chunkIndexOf = (record: MemoryRecord): number => {
  const index = (record.metadata as { chunkIndex?: unknown }).chunkIndex;
  return typeof index === 'number' ? index : Number.MAX_SAFE_INTEGER;
};

export function createKnowledgeBase(memories: LongTermMemory, counter: TokenCounter): KnowledgeBase {
  // Ingests of one document run one after another in this process: two at once each read the
  // other's half-stored chunks as "previous" and neither version was replaced.
  const ingesting = new Map<string, Promise<unknown>>();
  const oneAtATime = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const run = (ingesting.get(key) ?? Promise.resolve()).then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    ingesting.set(key, settled);
    void settled.then(() => {
      if (ingesting.get(key) === settled) ingesting.delete(key);
    });
    return run;
  };

  async function chunkIds(tenantId: string, agentId: string, documentId?: string) {
    const records = [];
    for (let offset = 0; ; offset += PAGE) {
      const { memories: page } = await memories.list(
        tenantId,
        {
          agentId: { eq: agentId },
          memoryType: { eq: 'semantic' },
          documentId: documentId ? { eq: documentId } : { exists: true },
        },
        { limit: PAGE, offset, order: 'created_asc' },
      );
      records.push(...page);
      if (page.length < PAGE) return records;
    }
  }

  /** One ingest of a document, run alone (`oneAtATime`): see `ingest`. */
  async function ingestOne(
    tenantId: string,
    document: z.output<typeof documentInputSchema>,
    documentId: string,
    options: IngestOptions,
  ): Promise<KnowledgeDocument> {
    const { signal, onProgress } = options;

    const slicer = createEventLoopSlicer(options.sliceMs);
    const progress: IngestProgress = { phase: 'chunking', chunks: 0, stored: 0, total: null };
    // Between steps: let other requests run once a slice is used up, and say how far it got.
    const pause = async () => {
      if (!(await slicer.pause())) return;
      signal?.throwIfAborted();
      await onProgress?.({ ...progress });
    };
    const chunks: DocumentChunk[] = [];
    for (const step of chunkDocumentSteps(document.content, {
      format: document.format,
      targetTokens: document.chunkTokens,
      overlapTokens: document.overlapTokens,
      count: (text) => counter.count(text),
    })) {
      if (step) chunks.push(step);
      progress.chunks = chunks.length;
      await pause();
    }
    Object.assign(progress, { phase: 'storing', total: chunks.length });
    await onProgress?.({ ...progress });
    // Replace, never mix versions: the old chunks go once the new ones are stored, and an attempt
    // that fails deletes what it inserted, so the old version stays whole (a new document leaves
    // nothing). Chunks the old version already had are reused, their place and name brought up
    // to date.
    const previous = await chunkIds(tenantId, document.agentId, documentId);
    const inserted: string[] = [];
    const stored = new Map<string, MemoryRecord>();
    try {
      const reused: { record: MemoryRecord; chunk: DocumentChunk }[] = [];
      for (let start = 0; start < chunks.length; start += STORE_PAGE) {
        await pause();
        const batch = chunks.slice(start, start + STORE_PAGE);
        const result = await memories.create(
          tenantId,
          batch.map((chunk) => chunkRecord(chunk)),
        );
        for (const record of result.inserted) {
          inserted.push(record.id);
          stored.set(record.id, record);
        }
        for (const { existing } of result.duplicates) {
          const chunk = batch.find((candidate) => candidate.text === existing.text);
          if (chunk && !stored.has(existing.id)) reused.push({ record: existing, chunk });
          stored.set(existing.id, existing);
        }
        progress.stored = stored.size;
      }
      for (const { record, chunk } of reused) {
        const wanted = chunkRecord(chunk);
        if (record.source === wanted.source && isDeepStrictEqual(record.metadata, wanted.metadata)) continue;
        await pause();
        await memories.edit(tenantId, record.id, { source: wanted.source, metadata: wanted.metadata });
      }
    } catch (error) {
      for (let start = 0; start < inserted.length; start += PAGE) {
        await memories.delete(tenantId, inserted.slice(start, start + PAGE)).catch(() => 0);
      }
      throw error;
    }
    const stale = previous.filter((record) => !stored.has(record.id)).map((record) => record.id);
    for (let start = 0; start < stale.length; start += PAGE) {
      await memories.delete(tenantId, stale.slice(start, start + PAGE));
    }
    await onProgress?.({ ...progress, phase: 'done' });
    return {
      documentId,
      agentId: document.agentId,
      name: document.name,
      chunks: stored.size,
      createdAt: [...stored.values()][0]?.createdAt ?? new Date().toISOString(),
    };

    /** A chunk as the record that holds it. */
    function chunkRecord(chunk: DocumentChunk) {
      return {
        text: chunk.text,
        memoryType: 'semantic' as const,
        agentId: document.agentId,
        documentId,
        source: document.name,
        // Headings as topics, each cut to a topic's length (the whole ones stay in metadata).
        topics: chunk.headings
          .slice(0, 10)
          .map((heading) => cutText(heading, MAX_TAG_CHARS))
          .filter((topic) => topic.trim().length > 0),
        metadata: { chunkIndex: chunk.index, chunkCount: chunks.length, headings: chunk.headings },
      };
    }
  }

  const base: KnowledgeBase = {
    async ingest(tenantId, input, options = {}) {
      const document = parseWith(documentInputSchema, input, 'document');
      const documentId = document.documentId ?? documentIdOf(document.agentId, document.name);
      return oneAtATime(JSON.stringify([tenantId, document.agentId, documentId]), () =>
        ingestOne(tenantId, document, documentId, options),
      );
    },

    async list(tenantId, agentId) {
      const documents = new Map<string, KnowledgeDocument>();
      for (const record of await chunkIds(tenantId, agentId)) {
        const documentId = record.documentId as string;
        const entry = documents.get(documentId);
        if (entry) entry.chunks++;
        else {
          documents.set(documentId, {
            documentId,
            agentId,
            name: record.source ?? documentId,
            chunks: 1,
            createdAt: record.createdAt,
          });
        }
      }
      return [...documents.values()].sort((a, b) => a.name.localeCompare(b.name));
    },

    async delete(tenantId, agentId, documentId) {
      const ids = (await chunkIds(tenantId, agentId, documentId)).map((record) => record.id);
      if (ids.length === 0) throw new NotFoundError('Document', documentId);
      let deleted = 0;
      for (let start = 0; start < ids.length; start += PAGE) {
        deleted += await memories.delete(tenantId, ids.slice(start, start + PAGE));
      }
      return deleted;
    },

    async chunks(tenantId, agentId, documentId, page) {
      // In document order (a chunk an edit reused keeps its first creation time): every chunk
      // is read and ordered by its index, then paged; a document has at most a few thousand.
      const all = await chunkIds(tenantId, agentId, documentId);
      if (all.length === 0) throw new NotFoundError('Document', documentId);
      all.sort((a, b) => chunkIndexOf(a) - chunkIndexOf(b));
      return { chunks: all.slice(page.offset, page.offset + page.limit), total: all.length };
    },

    async search(tenantId, request) {
      const { hits } = await memories.search(tenantId, {
        text: request.query,
        limit: request.limit ?? 5,
        filter: { agentId: { eq: request.agentId }, documentId: { exists: true } },
      });
      return hits.map(({ memory, relevance }) => ({
        id: memory.id,
        documentId: memory.documentId as string,
        source: memory.source ?? (memory.documentId as string),
        text: memory.text,
        relevance,
        chunkIndex: typeof memory.metadata.chunkIndex === 'number' ? memory.metadata.chunkIndex : null,
      }));
    },
  };
  return base;
}
