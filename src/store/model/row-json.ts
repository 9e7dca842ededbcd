import { encodeRowVersion } from '../../wire/row-version.ts'
import type { Row } from './types.ts'

/** Which fields of a row a reader sees, in which order, with their JSON key text ready. */
export interface Projection {
  /** Identifies the projection in caches: the hidden field names, sorted. */
  readonly key: string
  readonly names: readonly string[]
  /** `"Name":` (with a leading comma after the first), so serializing is concatenation. */
  readonly prefixes: readonly string[]
}

/** The projection of `columns` without the hidden fields (each one a column). */
export function projectionOf(columns: readonly string[], hidden: readonly string[]): Projection {
  const hiddenSet = new Set(hidden)
  const names = columns.filter((c) => !hiddenSet.has(c))
  return {
    key: projectionKey(hidden),
    names,
    prefixes: names.map((name, i) => `${i === 0 ? '' : ','}${JSON.stringify(name)}:`),
  }
}

/** Cache key of a hidden-fields set; order-insensitive. */
export function projectionKey(hidden: readonly string[]): string {
  return hidden.length === 0 ? '' : [...hidden].sort().join('\u0000')
}

/**
 * A row's JSON text as read results carry it: TIMESTAMP as base64 of its 8 bytes, every
 * projected field present (null when unset).
 */
export function serializeRow(row: Row, projection: Projection): string {
  const { names, prefixes } = projection
  const parts: string[] = ['{']
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string
    const value = row[name]
    parts.push(prefixes[i] as string)
    parts.push(name === 'TIMESTAMP' && typeof value === 'number' ? `"${encodeRowVersion(value)}"` : JSON.stringify(value ?? null))
  }
  parts.push('}')
  // join gives one flat string; `+=` would leave a rope that every later page join walks again.
  return parts.join('')
}
