import { z } from 'zod';
import { reject } from '../lax-fields.js';
import { pythonChoices } from '../validate-request.js';

const TRUE = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE = new Set(['false', '0', 'no', 'off', 'f', 'n']);

/** A boolean in pydantic's lax mode: JSON booleans, 0/1, and the usual spellings in text (query strings). */
export const laxBoolean = () =>
  z
    .unknown()
    .transform((value, context): boolean => {
      if (value === undefined) return reject(context, { type: 'missing', msg: 'Field required' });
      if (typeof value === 'boolean') return value;
      if (value === 0 || value === 1) return value === 1;
      if (typeof value === 'string') {
        const text = value.trim().toLowerCase();
        if (TRUE.has(text)) return true;
        if (FALSE.has(text)) return false;
        return reject(context, {
          type: 'bool_parsing',
          msg: 'Input should be a valid boolean, unable to interpret input',
        });
      }
      return reject(context, { type: 'bool_type', msg: 'Input should be a valid boolean' });
    })
    // The document shows what a client should send (a transform alone renders as "anything").
    .meta({ type: 'boolean' });

/** A float in pydantic's lax mode: a JSON number or numeric text. */
export const laxNumber = () =>
  z
    .unknown()
    .transform((value, context): number => {
      if (value === undefined) return reject(context, { type: 'missing', msg: 'Field required' });
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
        return Number(value);
      }
      if (typeof value === 'string') {
        return reject(context, {
          type: 'float_parsing',
          msg: 'Input should be a valid number, unable to parse string as a number',
        });
      }
      return reject(context, { type: 'float_type', msg: 'Input should be a valid number' });
    })
    .meta({ type: 'number' });

/** A Python Enum field: pydantic reports a wrong value as type `enum` (not `literal_error`). */
export const amsEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .unknown()
    .transform((value, context): T[number] => {
      if (value === undefined) return reject(context, { type: 'missing', msg: 'Field required' });
      if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value;
      const expected = pythonChoices(values);
      return reject(context, { type: 'enum', msg: `Input should be ${expected}`, ctx: { expected } });
    })
    .meta({ type: 'string', enum: [...values] });

/** `schema`, within [min, max] (pydantic's `ge`/`le` messages). */
export function bounded(schema: z.ZodType<number, unknown>, min?: number, max?: number) {
  let range = z.number();
  if (min !== undefined) range = range.min(min);
  if (max !== undefined) range = range.max(max);
  return schema.pipe(range);
}
