import { z } from 'zod';

/**
 * Lets other work run between items (an event-loop slicer's `pause`): a promise to wait for, or
 * undefined when the work may go on at once (hot loops then skip the `await`).
 */
export type Pause = () => Promise<unknown> | undefined;

/** A schema whose big array field is validated item by item, yielding between items. */
export interface SlicedSchema<T, K extends string = string> {
  /** The field whose array is validated item by item. */
  readonly key: K;
  /** The same result as `schema.safeParse(input, options)`: same data, same issues in the same order. */
  safeParse(
    input: unknown,
    pause: Pause,
    options?: { reportInput?: boolean },
  ): Promise<z.ZodSafeParseResult<T>>;
  /**
   * `safeParse`, with each valid item handed to `mapItem` as soon as it is parsed and only the
   * result kept: the parsed copies of 100,000 items die young instead of all surviving to the end
   * (every surviving object is copied by the garbage collector, in pauses of the event loop). The
   * outcome is `safeParse`'s followed by mapping the items in order: zod's issues, if any, win;
   * else the first error `mapItem` threw is thrown (no item after it is mapped).
   */
  mapItems<M>(
    input: unknown,
    pause: Pause,
    mapItem: (item: ItemOf<T, K>, index: number) => M | Promise<M>,
    options?: MapItemsOptions,
  ): Promise<z.ZodSafeParseResult<Omit<T, K> & Record<K, M[]>>>;
}

export interface MapItemsOptions {
  reportInput?: boolean;
  /**
   * Reads each item of the input's array before it is validated (the array may hold references,
   * such as where each item lies in a JSON text, so that the read copies die young too). What it
   * throws is thrown at once.
   */
  readItem?: (item: unknown, index: number) => unknown;
}

/** What the sliced field's array holds. */
export type ItemOf<T, K> = K extends keyof T ? (T[K] extends readonly (infer I)[] ? I : never) : never;

function arrayOf(field: z.ZodType): { array: z.ZodArray; rewrap: (array: z.ZodType) => z.ZodType } {
  if (field instanceof z.ZodArray) return { array: field, rewrap: (array) => array };
  if (field instanceof z.ZodDefault && field.unwrap() instanceof z.ZodArray) {
    return {
      array: field.unwrap() as z.ZodArray,
      rewrap: (array) => field.clone({ ...field._zod.def, innerType: array }),
    };
  }
  throw new TypeError('parseInSlices: the field must be a z.array, optionally with .default()');
}

/**
 * Cuts the validation of `schema[key]`, a large array, into one step per item: the envelope (every
 * other field, and the array's own checks such as `.max()`, so an oversize array costs no per-item
 * work) is parsed at once, then each item on its own, calling `pause` before each. The result is
 * exactly zod's: `schema` must be a plain `z.object` (no object-level refinements), whose issues zod
 * lists field by field in shape order, so the items' issues go where that field's would.
 */
export function parseInSlices<S extends z.ZodObject, K extends keyof S['shape'] & string>(
  schema: S,
  key: K,
): SlicedSchema<z.output<S>, K> {
  if (schema._zod.def.checks?.length)
    throw new TypeError('parseInSlices: object refinements are not supported');
  const { array, rewrap } = arrayOf(schema.shape[key] as z.ZodType);
  const element = array.element as z.ZodType;
  const envelope = schema.extend({
    [key]: rewrap(array.clone({ ...array._zod.def, element: z.unknown() })),
  });
  const keys = Object.keys(schema.shape);
  const position = keys.indexOf(key);
  const comesBefore = (issue: z.core.$ZodIssue) => {
    const index = keys.indexOf(String(issue.path[0]));
    return index !== -1 && index <= position;
  };
  const run = async (
    input: unknown,
    pause: Pause,
    { readItem, ...options }: MapItemsOptions,
    mapItem: (item: unknown, index: number) => unknown,
  ) => {
    const head = envelope.safeParse(input, options);
    const headIssues = head.success ? [] : head.error.issues;
    const raw = (input as Record<string, unknown> | null)?.[key];
    // Items are parsed only where zod would parse them: an object whose array passed its own checks.
    const itemsChecked =
      Array.isArray(raw) && !headIssues.some((issue) => issue.path.length === 0 || issue.path[0] === key);
    const items: unknown[] = [];
    const itemIssues: z.core.$ZodIssue[] = [];
    let mapError: { error: unknown } | undefined;
    for (const [index, item] of (itemsChecked ? raw : []).entries()) {
      // No `await` unless the slicer yields, and none for a mapping that answers at once: an
      // `await` per item kept each item's objects alive into the collector's next pause.
      const wait = pause();
      if (wait) await wait;
      const result = element.safeParse(readItem ? readItem(item, index) : item, options);
      if (!result.success)
        for (const issue of result.error.issues)
          itemIssues.push({ ...issue, path: [key, index, ...issue.path] });
      else if (itemIssues.length === 0 && mapError === undefined) {
        // Nothing is mapped once an item failed: the outcome is then that failure.
        try {
          const mapped = mapItem(result.data, index);
          items.push(mapped instanceof Promise ? await mapped : mapped);
        } catch (error) {
          mapError = { error };
        }
      }
    }
    if (head.success && itemIssues.length === 0) {
      if (mapError) throw mapError.error;
      const data = { ...(head.data as Record<string, unknown>) };
      if (itemsChecked) data[key] = items;
      return { success: true as const, data };
    }
    const issues = [
      ...headIssues.filter(comesBefore),
      ...itemIssues,
      ...headIssues.filter((issue) => !comesBefore(issue)),
    ];
    return { success: false as const, error: new z.ZodError(issues) };
  };
  return {
    key,
    safeParse: (input, pause, options = {}) =>
      run(input, pause, options, (item) => item) as Promise<z.ZodSafeParseResult<z.output<S>>>,
    mapItems: (input, pause, mapItem, options = {}) =>
      run(input, pause, options, mapItem as (item: unknown, index: number) => unknown) as never,
  };
}
