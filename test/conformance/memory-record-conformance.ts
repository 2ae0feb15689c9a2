import { afterEach, beforeEach, describe } from 'vitest';
import type { EngramStore } from '../../src/stores/engram-store.js';
import { describeMemoryFilterConformance } from './memory-filter-conformance.js';
import { describeMemoryHistoryConformance } from './memory-history-conformance.js';
import { describeMemoryIndexConformance } from './memory-index-conformance.js';
import { describeMemoryNeighborConformance } from './memory-neighbor-conformance.js';
import { describeMemoryPropertyConformance } from './memory-property-conformance.js';
import type { MemoryConformanceContext } from './memory-record-fixtures.js';
import { describeMemorySearchConformance } from './memory-search-conformance.js';
import { describeMemoryVersionConformance } from './memory-version-conformance.js';
import { describeMemoryWriteConformance } from './memory-write-conformance.js';

/**
 * The behaviour every `MemoryRecordStore` driver must show (the `memories` of an `EngramStore`).
 * A driver's test file calls this with a factory; each test gets a fresh, empty store. A backend
 * that several stores can share (a SQLite file) also passes `connectAgain`, which opens another
 * store on the backend of the store the factory made last.
 */
export function describeMemoryRecordStoreConformance(
  name: string,
  factory: () => Promise<EngramStore>,
  connectAgain?: () => Promise<EngramStore>,
): void {
  describe(`MemoryRecordStore conformance: ${name}`, () => {
    // Filled in before each test; the sections read it only inside their tests.
    const context = {} as MemoryConformanceContext;

    beforeEach(async () => {
      context.store = await factory();
      context.memories = context.store.memories;
    });

    afterEach(async () => {
      await context.store.close();
    });

    describe('writes', () => describeMemoryWriteConformance(context));
    describe('versions, deletion and access', () => describeMemoryVersionConformance(context));
    describe('stable ids and history', () => describeMemoryHistoryConformance(context));
    describe('filters and paging', () => describeMemoryFilterConformance(context));
    describe('search', () => describeMemorySearchConformance(context));
    describe('session neighbours', () => describeMemoryNeighborConformance(context));
    describe('search at scale', () => describeMemoryIndexConformance(context, connectAgain));
    describe('model', () => describeMemoryPropertyConformance(factory));
  });
}
