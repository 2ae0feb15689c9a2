/** Distinct values `sharedString` hands out, at most (past it, values are kept as given). */
const SHARED_VALUES = 100_000;
const sharedValues = new Map<string, string>();

/**
 * One string per distinct value of a field that repeats across a tenant's rows (namespace, user,
 * agent, memory type). Filters test these fields on rows scattered over the heap: with every row's
 * copy of "semantic" its own string, each test read one more cold cache line (at a million rows,
 * about half of a vector search's filter time); a shared one stays in cache.
 */
export function sharedString<Value extends string | null>(value: Value): Value {
  if (value === null) return value;
  const known = sharedValues.get(value);
  if (known !== undefined) return known as Value;
  if (sharedValues.size < SHARED_VALUES) sharedValues.set(value, value);
  return value;
}
