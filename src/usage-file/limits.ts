/**
 * The bounds of a usage file, the same for every command that reads one (`upgrade`, `verify
 * --usage`, `coverage`, `usage merge`): a file past one is refused before any of its contents is
 * used, naming the bound. Each is far above what `--record-usage` writes for a large client (a
 * recorded interaction is about 1 KB, its shapes nest at most 8 deep, a table has at most a few
 * hundred fields), and low enough that no command meets a text, a list or a nesting it cannot
 * walk in time in proportion to the file. The published schema (spec/usage.schema.json) says all
 * but the file's size, which only the reader can know before reading it; docs/usage.md, Limits,
 * lists them for people.
 */
export const USAGE_LIMITS = {
  /** Bytes in the file: checked on the file before it is read whole. 256 MiB, about 250,000 recorded interactions. */
  fileBytes: 256 * 1024 * 1024,
  /** Interactions (recorded request shapes) in the file. */
  interactions: 200_000,
  /** Characters (UTF-16 code units) of a text: a filter template, an order, a relation key, a media type. */
  textLength: 65_536,
  /** Characters of a member name: a field of a row, a member of a body. */
  nameLength: 1_024,
  /** Members of one object: fields of a kind of row, members of a body's shape. */
  members: 2_048,
  /** Items of one list: kinds of rows in a save, tables of a delete, query options, media types, problem codes. */
  listItems: 1_000,
  /** Levels of members and items within a body's shape (objects and lists within each other); the recorder writes at most 8. */
  shapeDepth: 16,
} as const

/**
 * A whole number from 0 to `max` without leading zeros, as a regular expression's alternatives:
 * fewer digits than `max`, or as many with a smaller digit after a prefix of `max`, or `max`. A
 * release's parts are read as safe integers (normalizeVersion), so a 16-digit part past
 * 9007199254740991 is no release the mock emulates, and the schema refuses it too.
 */
function wholeNumberUpTo(max: string): string {
  const alternatives = ['0', `[1-9][0-9]{0,${max.length - 2}}`]
  for (let i = 0; i < max.length; i++) {
    const [digit, lowest] = [Number(max[i]), i === 0 ? 1 : 0]
    if (digit > lowest) alternatives.push(`${max.slice(0, i)}[${lowest}-${digit - 1}][0-9]{${max.length - i - 1}}`)
  }
  return [...alternatives, max].join('|')
}

/**
 * The releases a usage file may name: 2.x and 3.x (or `latest`), as the mock emulates them
 * (emulatedRelease in src/mock/config.ts, normalizeVersion in spec/versions.ts); a test holds the two
 * to the same verdict.
 */
export const RELEASE_PATTERN = `^(?:latest|[23](?:\\.(?:${wholeNumberUpTo(String(Number.MAX_SAFE_INTEGER))})){0,2})$`

/** The mark of the schema's shape at the nesting limit (its `$comment`), by which the reader names the limit. */
export const SHAPE_AT_LIMIT = 'shapeAtDepthLimit'

/** The releases known, as a message names them. */
export const KNOWN_RELEASES = '2.0 to 3.x, such as 2.9, 3.0.18 or 3.0.19 (latest)'
