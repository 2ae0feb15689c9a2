import type { SessionSummary } from '../../core/schemas/session.js';

/**
 * Compares strings by Unicode code point, which is the order SQLite's BINARY collation gives on
 * UTF-8 text; plain `<` compares UTF-16 code units and would disagree past the BMP.
 */
export function compareCodePoints(left: string, right: string): number {
  let leftIndex = 0;
  let rightIndex = 0;
  while (leftIndex < left.length && rightIndex < right.length) {
    const leftPoint = left.codePointAt(leftIndex) ?? 0;
    const rightPoint = right.codePointAt(rightIndex) ?? 0;
    if (leftPoint !== rightPoint) return leftPoint - rightPoint;
    leftIndex += leftPoint > 0xffff ? 2 : 1;
    rightIndex += rightPoint > 0xffff ? 2 : 1;
  }
  return left.length - leftIndex - (right.length - rightIndex);
}

/** Null sorts before every string, as in SQL ascending order. */
function compareNullable(left: string | null, right: string | null): number {
  if (left === right) return 0;
  if (left === null) return -1;
  if (right === null) return 1;
  return compareCodePoints(left, right);
}

/**
 * The listing order of the contract: newest `updatedAt` first, then tenant, namespace, user and
 * session id ascending so that ties are stable across pages.
 */
export function compareListOrder(left: SessionSummary, right: SessionSummary): number {
  return (
    Date.parse(right.updatedAt) - Date.parse(left.updatedAt) ||
    compareCodePoints(left.tenantId, right.tenantId) ||
    compareNullable(left.namespace, right.namespace) ||
    compareNullable(left.userId, right.userId) ||
    compareCodePoints(left.sessionId, right.sessionId)
  );
}
