/*
 * The character codes of JSON's structure, shared by the scanners that read a body before it is
 * parsed (`overlong-body-field.ts` on UTF-8 bytes, `parse-json-in-slices.ts` on text: structural
 * characters are ASCII, so a byte and a UTF-16 code unit agree on them).
 */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
/** The `u` of a `\uXXXX` escape. */
export const LOWER_U = 0x75;
