/**
 * What went otherwise than a client relied on, grouped by cause: the 29 recorded query shapes that
 * all meet "GET is gone" are one cause, said once with how many shapes meet it and one example,
 * not 29 lines. Shared by `verify --usage` (its failures, verify-usage.ts) and `upgrade` (its
 * findings, src/commands/upgrade/findings.ts), so the two commands count and name a cause the same way.
 */

/** Items that share one cause, in the order they came. */
export interface CauseGroup<T> {
  /** The cause's key, as `keyOf` gave it. */
  key: string
  items: T[]
}

/**
 * Items grouped by the key of their cause: groups in the order of their first item, each group's
 * items in the order they came. Pure; `keyOf` decides what counts as one cause.
 */
export function groupByCause<T>(items: Iterable<T>, keyOf: (item: T) => string): Array<CauseGroup<T>> {
  const groups = new Map<string, CauseGroup<T>>()
  for (const item of items) {
    const key = keyOf(item)
    let group = groups.get(key)
    if (group === undefined) groups.set(key, (group = { key, items: [] }))
    group.items.push(item)
  }
  return [...groups.values()]
}

/**
 * A failure's text as the key of its cause: the numbers in it (row Ids, row versions, counts) and
 * quoted values set aside, so that one cause met on different rows or with different values reads
 * as one ("row 9 comes before row 16" and "row 3 comes before row 4" are one broken order).
 */
export function causeKey(text: string): string {
  return text
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/'(?:[^'\\]|\\.)*'/g, "'…'")
    .replace(/\d+/g, '#')
}

/**
 * The lines of one group: the first item's line as it would read alone, then how many more
 * interactions meet the same cause and which (the first few by title; the rest counted).
 */
export function groupLines(first: string, others: readonly string[], shown = 3): string[] {
  if (others.length === 0) return [first]
  const named = others.slice(0, shown).join('; ')
  const rest = others.length > shown ? `; and ${others.length - shown} more` : ''
  return [first, `     the same cause in ${others.length} more interaction(s): ${named}${rest}`]
}
