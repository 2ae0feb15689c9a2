import { z } from 'zod';

/** Lets other work run between items (an event-loop slicer's `pause`). */
export type Pause = () => Promise<unknown>;

/** A schema whose big array field is validated item by item, yielding between items. */
export interface SlicedSchema<T> {
  /** The field whose array is validated item by item. */
  readonly key: string;
  /** The same result as `schema.safeParse(input, options)`: same data, same issues in the same order. */
  safeParse(
    input: unknown,
    pause: Pause,
    options?: { reportInput?: boolean },
  ): Promise<z.ZodSafeParseResult<T>>;
}

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
export function parseInSlices<S extends z.ZodObject>(
  schema: S,
  key: keyof S['shape'] & string,
): SlicedSchema<z.output<S>> {
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
  return {
    key,
    async safeParse(input, pause, options = {}) {
      const head = envelope.safeParse(input, options);
      const headIssues = head.success ? [] : head.error.issues;
      const raw = (input as Record<string, unknown> | null)?.[key];
      // Items are parsed only where zod would parse them: an object whose array passed its own checks.
      const itemsChecked =
        Array.isArray(raw) && !headIssues.some((issue) => issue.path.length === 0 || issue.path[0] === key);
      const items: unknown[] = [];
      const itemIssues: z.core.$ZodIssue[] = [];
      for (const [index, item] of (itemsChecked ? raw : []).entries()) {
        await pause();
        const result = element.safeParse(item, options);
        if (result.success) items.push(result.data);
        else
          for (const issue of result.error.issues)
            itemIssues.push({ ...issue, path: [key, index, ...issue.path] });
      }
      if (head.success && itemIssues.length === 0) {
        const data = { ...(head.data as Record<string, unknown>) };
        if (itemsChecked) data[key] = items;
        return { success: true, data: data as z.output<S> };
      }
      const issues = [
        ...headIssues.filter(comesBefore),
        ...itemIssues,
        ...headIssues.filter((issue) => !comesBefore(issue)),
      ];
      return { success: false, error: new z.ZodError(issues) as z.ZodError<z.output<S>> };
    },
  };
}
