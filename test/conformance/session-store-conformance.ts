import { afterEach, beforeEach, describe } from 'vitest';
import type { SessionStore } from '../../src/stores/session-store.js';
import { describeExpiryConformance } from './expiry-conformance.js';
import { type ConformanceContext, createFakeClock } from './fixtures.js';
import { describeIdleConformance } from './idle-conformance.js';
import { describeModelConformance } from './model-conformance.js';
import { describeReadConformance } from './read-conformance.js';
import { describeRevisionConformance } from './revision-conformance.js';
import { describeSummaryConformance } from './summary-conformance.js';
import { describeWriteConformance } from './write-conformance.js';

/**
 * The behaviour every `SessionStore` driver must show. A driver's test file calls this with a
 * factory; each test gets a fresh, empty store driven by a fake clock it can advance.
 */
export function describeSessionStoreConformance(
  name: string,
  factory: (options: { clock: () => Date }) => Promise<SessionStore>,
): void {
  describe(`SessionStore conformance: ${name}`, () => {
    // Filled in before each test; the sections read it only inside their tests.
    const context = {} as ConformanceContext;

    beforeEach(async () => {
      context.clock = createFakeClock();
      context.store = await factory({ clock: context.clock.now });
    });

    afterEach(async () => {
      await context.store.close();
    });

    describe('writes', () => describeWriteConformance(context));
    describe('reads', () => describeReadConformance(context));
    describe('revisions', () => describeRevisionConformance(context));
    describe('expiry', () => describeExpiryConformance(context));
    describe('summary mark', () => describeSummaryConformance(context));
    describe('model', () => describeModelConformance(context));
    describe('idle listing', () => describeIdleConformance(context));
  });
}
