/** A value as an error message quotes it. */
/**
 * Field names are free text (the fixture schema allows `__proto__` and `constructor`), and rows are
 * plain objects. These two keep such a name an ordinary member: an assignment `row.__proto__ = v`
 * would set the row's prototype (or do nothing) instead of storing v, and reading `row.constructor`
 * of a row without that member finds Object.prototype's. JSON.parse and object spread already make
 * own members of them.
 */
export function setOwn(target: object, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true })
  else (target as Record<string, unknown>)[name] = value
}

/** A member's value when the object has it as its own, else undefined (see setOwn). */
export function ownValue<T>(source: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(source, name) ? source[name] : undefined
}

/** A name or text from a request as a message quotes it: at most `max` characters, so a megabyte name is not echoed whole. */
export function shortened(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}...` : text
}

export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`
  if (value === undefined) return 'nothing'
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object'
  return `${typeof value} ${String(value)}`
}
