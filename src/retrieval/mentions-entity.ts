import { words } from '../core/text/analyze-text.js';

/**
 * A test of whether `query` names one of a memory's entities: an entity matches when its words
 * (lowercased, accents and possessive `'s` dropped) occur in the query as a contiguous run, so
 * "Caroline" matches "What did Caroline's friend say?" and "New York" matches "trip to new york",
 * but "Ann" does not match "Annabel". Entities are cached, so testing many memories stays cheap.
 */
export function mentionsEntity(query: string): (entities: readonly string[]) => boolean {
  const queryText = ` ${words(query).join(' ')} `;
  const cache = new Map<string, boolean>();
  const named = (entity: string): boolean => {
    let found = cache.get(entity);
    if (found === undefined) {
      const entityWords = words(entity);
      found = entityWords.length > 0 && queryText.includes(` ${entityWords.join(' ')} `);
      cache.set(entity, found);
    }
    return found;
  };
  return (entities) => entities.some(named);
}
