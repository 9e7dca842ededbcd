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
