/** Patterns the document gives and the mock holds requests to; a module of their own, so the mock loads them without the document's modules. */

/** A word in any letter case, as a pattern (JSON Schema patterns take no flags). */
const anyCase = (word: string): string => [...word].map((c) => `[${c.toUpperCase()}${c.toLowerCase()}]`).join('')
const SPACE = '[ \\t\\r\\n]'
/** A row or folder Id: a whole number, quoted or not, as Get Items reads numbers (at most 15 digits, so always exact). */
const ID = `(?:[0-9]{1,15}|'${SPACE}*[0-9]{1,15}${SPACE}*')`
/** A condition, or the same in one pair of parentheses. */
const grouped = (condition: string): string => `(?:\\(${SPACE}*${condition}${SPACE}*\\)|${condition})`
const PARENT = grouped(`${anyCase('ParentId')}${SPACE}+${anyCase('eq')}${SPACE}+${ID}`)
const FOLDER = grouped(`${anyCase('FolderId')}${SPACE}+${anyCase('eq')}${SPACE}+(?:${ID}|${anyCase('null')})`)

/**
 * The filter the description shows, `ParentId eq <row Id>` optionally followed by ` and FolderId eq <folder Id>`, in the
 * filter language of Get Items: any spacing, keywords in any case, values quoted or not, `FolderId eq null` for the top
 * level, each condition and the whole in at most one pair of parentheses.
 */
export const ATTACHMENT_FILTER_PATTERN = `^${SPACE}*${grouped(`${PARENT}(?:${SPACE}+${anyCase('and')}${SPACE}+${FOLDER})?`)}${SPACE}*$`

/**
 * What may not stand in an address: C0 and C1 controls, space, DEL, and every character either dialect's `\s` takes
 * (ECMAScript's adds U+FEFF; Python's adds U+001C to U+001F and U+0085). Written out, since `\s` differs between them.
 */
const NOT_IN_ADDRESS = '@<>\\x00-\\x20\\x7f-\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff'
const ADDRESS = `[^${NOT_IN_ADDRESS}]+@[^${NOT_IN_ADDRESS}]+`

/**
 * An e-mail recipient as the mock takes it: an RFC 5322 mailbox, `local@domain` with any domain (`ops@localhost`
 * too) or `Display Name <local@domain>`, the name without control characters. Written so that ECMAScript (ajv, with
 * its unicode flag) and Python's `re` (Schemathesis, hypothesis-jsonschema) read it alike: no `\s`, `\d`, `\w`, `\b`
 * or `.`, whose classes differ, and `$(?!\n)` for the end, since Python's `$` also matches before a final newline.
 */
export const EMAIL_RECIPIENT_PATTERN = `^(?:[^<>\\x00-\\x1f\\x7f]*<${ADDRESS}>|${ADDRESS})$(?!\\n)`
