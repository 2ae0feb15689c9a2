import { z } from 'zod';
import { canonicalIsoText } from '../../core/canonical-iso-text.js';
import { reject } from '../lax-fields.js';

const isoPattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:(Z|z)|([+-])(\d{2}):?(\d{2}))?)?$/;

/** Unix time in seconds, or in milliseconds when its absolute value exceeds 2×10^10 (pydantic's rule). */
function fromEpoch(value: number): Date {
  return new Date(Math.abs(value) > 2e10 ? value : value * 1_000);
}

function fromIsoText(text: string): Date | null {
  const match = isoPattern.exec(text.trim());
  if (!match) return null;
  const [
    ,
    year,
    month,
    day,
    hour = '0',
    minute = '0',
    second = '0',
    fraction = '',
    ,
    sign,
    offsetHours,
    offsetMinutes,
  ] = match;
  const fields = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = fields;
  const milliseconds = Number(fraction.padEnd(3, '0').slice(0, 3));
  // Not `Date.UTC`: it reads years 0-99 as 1900-1999, and pydantic takes year 50 as year 50.
  const check = new Date(0);
  check.setUTCFullYear(y, mo - 1, d);
  check.setUTCHours(h, mi, s, milliseconds);
  const utc = check.getTime();
  // Reject calendar overflow (2025-02-30, 25:00) instead of letting Date roll it over.
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  if (Number(offsetHours ?? 0) > 23 || Number(offsetMinutes ?? 0) > 59) return null;
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) : 0;
  return new Date(utc - offset * 60_000);
}

/**
 * A datetime as AMS accepts it (§1.5): ISO-8601 with `Z`, an offset or none (naive = UTC), `T` or a
 * space, date only, or Unix time as a number or numeric text. Output: ISO text in UTC.
 */
export const amsDateTime = () =>
  // /openapi.json shows it as AMS documents it; the other accepted forms are in docs/server.md.
  amsDateTimeTransform().meta({ type: 'string', format: 'date-time' });

const amsDateTimeTransform = () =>
  z.unknown().transform((value, context): string => {
    if (value === undefined) return reject(context, { type: 'missing', msg: 'Field required' });
    if (typeof value === 'string') {
      const canonical = canonicalIsoText(value);
      if (canonical !== undefined) return canonical;
    }
    let date: Date | null = null;
    if (typeof value === 'number' && Number.isFinite(value)) date = fromEpoch(value);
    else if (typeof value === 'string' && /^\s*[-+]?\d+(\.\d+)?\s*$/.test(value))
      date = fromEpoch(Number(value));
    else if (typeof value === 'string') date = fromIsoText(value);
    else return reject(context, { type: 'datetime_type', msg: 'Input should be a valid datetime' });
    const year = date?.getUTCFullYear() ?? Number.NaN;
    if (date === null || !(year >= 1 && year <= 9999)) {
      return reject(context, {
        type: 'datetime_from_date_parsing',
        msg: 'Input should be a valid datetime or date, invalid character or value',
      });
    }
    return date.toISOString();
  });

/**
 * pydantic's text form of a UTC datetime: `Z`, no fraction when it is zero, otherwise six digits
 * (`2025-01-02T03:04:05.123000Z`). `wholeSeconds` drops the fraction, as AMS does for session times.
 */
export function formatAmsDateTime(iso: string, wholeSeconds = false): string {
  const base = iso.slice(0, 19);
  const milliseconds = iso.slice(20, 23);
  if (wholeSeconds || milliseconds === '000' || milliseconds.length === 0) return `${base}Z`;
  return `${base}.${milliseconds}000Z`;
}
