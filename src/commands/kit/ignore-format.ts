/**
 * The ignore file's format, as data: its bounds and, for each command that takes `--ignore`, the
 * members that name a finding. The published schema (spec/ignore.schema.json, written by `npm run
 * spec` from spec/ignore-schema.ts) is built from these, and the reader (ignore-file.ts) says them
 * in its messages, so the two cannot come to disagree.
 */

/** The bounds of an ignore file: a list a team writes by hand, read once and matched against every finding. */
export const IGNORE_LIMITS = {
  /** Largest file, in bytes: refused before it is read whole. */
  fileBytes: 1024 * 1024,
  /** Most entries. */
  entries: 1000,
  /** Longest text of a member (a pointer, an operation's id, a reason), in characters. */
  textLength: 1024,
} as const

/** The commands that take `--ignore`. */
export type IgnoreCommand = 'proxy' | 'upgrade'

/** The members that name a finding, per command, in the order messages list them; `reason` is free text beside them. */
export const IGNORE_FIELDS = {
  proxy: ['side', 'operationId', 'pointer'],
  upgrade: ['kind', 'operationId'],
} as const satisfies Record<IgnoreCommand, readonly string[]>

/** What any member that names something may also be: every value. */
export const ANY = '*'
