/**
 * The character codes of JSON's structure, the same as UTF-8 bytes and UTF-16 units, for the
 * scanners that read a JSON text without parsing it whole: a big save's rows (src/http/json-slices.ts,
 * over text), a body's nesting and members (src/http/json-limits.ts, over text) and an earlier
 * version's JSON state file (src/wire/json-pieces.ts, over bytes).
 */
export const QUOTE = 0x22
export const BACKSLASH = 0x5c
export const COMMA = 0x2c
export const COLON = 0x3a
export const OPEN_OBJECT = 0x7b
export const CLOSE_OBJECT = 0x7d
export const OPEN_ARRAY = 0x5b
export const CLOSE_ARRAY = 0x5d

/** JSON's white space (RFC 8259 §2): space, line feed, carriage return, tab. */
export const isJsonSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
